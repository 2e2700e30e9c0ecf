package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Routes a read-only scope that has no physical transaction, such as
 * {@code @Transactional(readOnly = true, propagation = SUPPORTS)}, to the read pool. A
 * single-statement read then needs one round trip on an auto-commit connection instead of
 * BEGIN, the query and COMMIT. Inside a real transaction the lazy routing proxy decides,
 * as before: read-only transactions to the replicas, the rest to the primary.
 */
class ReadOnlyScopeDataSource extends DelegatingDataSource {

	private final DataSource readPool;

	ReadOnlyScopeDataSource(DataSource lazyRoutingProxy, DataSource readPool) {
		super(lazyRoutingProxy);
		this.readPool = readPool;
	}

	@Override
	public Connection getConnection() throws SQLException {
		if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()
				&& !TransactionSynchronizationManager.isActualTransactionActive()) {
			return this.readPool.getConnection();
		}
		return super.getConnection();
	}

}
