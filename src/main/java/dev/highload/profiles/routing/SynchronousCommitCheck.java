package dev.highload.profiles.routing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;

import javax.sql.DataSource;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Wraps the write pool so that a commit PostgreSQL confirms only with a warning, because
 * its wait for the synchronous standbys was cancelled, is not taken for a success, and a
 * commit whose connection broke is not taken for a failure.
 * <p>
 * Such a commit (after {@code pg_cancel_backend}, a statement timeout or a shutdown while
 * waiting) has happened on the primary but no replica confirmed it: after a failover it
 * may be gone. PostgreSQL still answers COMMIT as successful and only adds a warning.
 * Here the warning becomes an {@link UnconfirmedCommitException}: the caller learns that
 * the outcome is unknown, it is logged and counted in
 * {@code profiles.commits.unconfirmed}. The check matches PostgreSQL's English message
 * text (the embedded and compose clusters use English messages).
 */
class SynchronousCommitCheck extends DelegatingDataSource {

	private static final Logger log = LoggerFactory.getLogger(SynchronousCommitCheck.class);

	private final Counter unconfirmed;

	SynchronousCommitCheck(DataSource target, MeterRegistry meterRegistry) {
		super(target);
		this.unconfirmed = Counter.builder("profiles.commits.unconfirmed")
			.description("Commits whose wait for a synchronous standby was cancelled, or whose connection broke: "
					+ "outcome unknown")
			.register(meterRegistry);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return checked(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return checked(super.getConnection(username, password));
	}

	private Connection checked(Connection connection) {
		return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
				new Class<?>[] { Connection.class }, new CommitHandler(connection));
	}

	/** Whether a warning says that a commit's synchronous wait was cancelled. */
	static boolean isCancelledSynchronousWait(SQLWarning warning) {
		for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
			String message = w.getMessage();
			if (message != null && message.contains("wait for synchronous replication")) {
				return true;
			}
		}
		return false;
	}

	/** Whether a commit failed because the connection or the server went away. */
	static boolean isConnectionLost(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && (state.startsWith("08") || state.startsWith("57P"));
	}

	private final class CommitHandler implements InvocationHandler {

		private final Connection target;

		CommitHandler(Connection target) {
			this.target = target;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			switch (method.getName()) {
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "unwrap":
					if (((Class<?>) args[0]).isInstance(proxy)) {
						return proxy;
					}
					break;
				case "isWrapperFor":
					if (((Class<?>) args[0]).isInstance(proxy)) {
						return true;
					}
					break;
				case "commit":
					commit();
					return null;
				default:
					break;
			}
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private void commit() throws SQLException {
			this.target.clearWarnings();
			try {
				this.target.commit();
			}
			catch (SQLException ex) {
				if (!isConnectionLost(ex)) {
					throw ex;
				}
				// A primary killed while the commit waited for a standby: committed
				// locally
				// perhaps, replicated perhaps not. A failure would be a lie a client
				// retries.
				SynchronousCommitCheck.this.unconfirmed.increment();
				log.warn("Connection lost during commit, outcome unknown: {}", ex.getMessage());
				throw new UnconfirmedCommitException(ex);
			}
			SQLWarning warnings = this.target.getWarnings();
			if (isCancelledSynchronousWait(warnings)) {
				this.target.clearWarnings();
				SynchronousCommitCheck.this.unconfirmed.increment();
				log.warn("Commit not confirmed by any synchronous standby, outcome unknown: {}", warnings.getMessage());
				throw new UnconfirmedCommitException(warnings);
			}
		}

	}

}
