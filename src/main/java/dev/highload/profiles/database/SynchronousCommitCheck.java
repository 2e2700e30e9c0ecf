package dev.highload.profiles.database;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.postgresql.PGConnection;
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
 * <p>
 * While no synchronous standby is connected, PostgreSQL lets a commit wait forever, and
 * neither a statement timeout nor a pool timeout bounds that wait. So every commit gets a
 * deadline, {@code app.db.write-timeout}: when it passes, the commit is cancelled
 * (PostgreSQL's cancel request), which ends the wait with that warning, and the caller
 * gets the same {@link UnconfirmedCommitException}. The connection is then idle and
 * healthy. If the cancel does not end the commit within the same time again (a primary
 * that answers nothing), the physical connection is aborted: the commit fails with a
 * connection error, which the pool evicts, and which is reported as an unknown outcome
 * too. A commit that fails on a broken connection or a server shutdown is likewise of
 * unknown outcome: it may have been committed before the connection went.
 */
class SynchronousCommitCheck extends DelegatingDataSource {

	private static final Logger log = LoggerFactory.getLogger(SynchronousCommitCheck.class);

	private final Counter unconfirmed;

	private final long deadlineNanos;

	private final ScheduledThreadPoolExecutor timer;

	SynchronousCommitCheck(DataSource target, MeterRegistry meterRegistry, Duration writeTimeout) {
		super(target);
		if (writeTimeout.isZero() || writeTimeout.isNegative()) {
			throw new IllegalArgumentException("app.db.write-timeout must be positive, was " + writeTimeout);
		}
		this.unconfirmed = Counter.builder("profiles.commits.unconfirmed")
			.description("Commits whose wait for a synchronous standby was cancelled, or whose connection broke: "
					+ "outcome unknown")
			.register(meterRegistry);
		this.deadlineNanos = writeTimeout.toNanos();
		this.timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "commit-deadline");
			thread.setDaemon(true);
			return thread;
		});
		this.timer.setRemoveOnCancelPolicy(true);
		// No thread lingers while no commit runs, so nothing needs shutting down.
		this.timer.setKeepAliveTime(10, TimeUnit.SECONDS);
		this.timer.allowCoreThreadTimeOut(true);
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
			Deadline deadline = new Deadline(this.target.unwrap(PGConnection.class));
			try {
				this.target.commit();
			}
			catch (SQLException ex) {
				if (deadline.passed() || DatabaseFailures.isOutcomeUnknown(ex)) {
					SynchronousCommitCheck.this.unconfirmed.increment();
					log.warn("Commit failed on the connection, outcome unknown: {}", ex.toString());
					throw new UnconfirmedCommitException(
							"Commit interrupted by a connection failure, outcome unknown: " + ex.getMessage(), ex);
				}
				throw ex;
			}
			finally {
				// Before the connection is used again: no cancel may reach a later one.
				deadline.clear();
			}
			SQLWarning warnings = this.target.getWarnings();
			if (isCancelledSynchronousWait(warnings)) {
				this.target.clearWarnings();
				SynchronousCommitCheck.this.unconfirmed.increment();
				log.warn("Commit not confirmed by any synchronous standby{}, outcome unknown: {}",
						deadline.passed() ? " within app.db.write-timeout" : "", warnings.getMessage());
				throw new UnconfirmedCommitException(warnings);
			}
		}

	}

	/**
	 * One commit's deadline: the cancel request when it passes, the abort of the
	 * connection when the same time has passed again. Both run under a lock that
	 * {@link #clear} takes too, so neither reaches the connection after the commit.
	 */
	private final class Deadline {

		private final PGConnection connection;

		private final ScheduledFuture<?> cancel;

		private final ScheduledFuture<?> abort;

		private boolean cleared;

		private volatile boolean passed;

		Deadline(PGConnection connection) {
			this.connection = connection;
			long nanos = SynchronousCommitCheck.this.deadlineNanos;
			this.cancel = SynchronousCommitCheck.this.timer.schedule(this::cancel, nanos, TimeUnit.NANOSECONDS);
			this.abort = SynchronousCommitCheck.this.timer.schedule(this::abort, 2 * nanos, TimeUnit.NANOSECONDS);
		}

		boolean passed() {
			return this.passed;
		}

		private synchronized void cancel() {
			if (this.cleared) {
				return;
			}
			this.passed = true;
			try {
				this.connection.cancelQuery();
			}
			catch (SQLException | RuntimeException ex) {
				log.warn("Could not cancel a commit past its deadline: {}", ex.toString());
			}
		}

		private synchronized void abort() {
			if (this.cleared) {
				return;
			}
			this.passed = true;
			log.warn("A commit did not end after its cancel; aborting its connection");
			try {
				((Connection) this.connection).abort(Runnable::run);
			}
			catch (SQLException | RuntimeException ex) {
				log.warn("Could not abort the connection of a commit past its deadline: {}", ex.toString());
			}
		}

		void clear() {
			this.cancel.cancel(false);
			this.abort.cancel(false);
			synchronized (this) {
				this.cleared = true;
			}
		}

	}

}
