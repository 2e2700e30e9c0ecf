package dev.highload.profiles.database;

import java.sql.Connection;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;

/**
 * What every write goes through: a {@link LazyConnectionDataSourceProxy}, which takes no
 * connection before a transaction's first statement (a registration hashes its password
 * first, holding none), over the {@link SynchronousCommitCheck}, over the write pool.
 */
public final class WritePath {

	private WritePath() {
	}

	/**
	 * @param writePool the pool that always reaches the primary
	 * @param properties for the write timeout
	 * @param meterRegistry for the count of unconfirmed commits
	 * @return the DataSource of writes
	 */
	public static DataSource over(HikariDataSource writePool, DatabaseProperties properties,
			MeterRegistry meterRegistry) {
		LazyConnectionDataSourceProxy proxy = new LazyConnectionDataSourceProxy(
				new SynchronousCommitCheck(writePool, meterRegistry, properties.writeTimeout()));
		// The pool's own defaults, so the proxy need not open a connection to learn them.
		proxy.setDefaultAutoCommit(true);
		proxy.setDefaultTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
		return proxy;
	}

}
