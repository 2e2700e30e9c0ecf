package dev.highload.profiles.database;

import java.sql.SQLException;
import java.sql.SQLTransientException;

import org.apache.commons.lang3.exception.ExceptionUtils;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The one place that reads a database failure and decides what it means for the request.
 * Every {@code @Service} call passes through it ({@link DatabaseFailureTranslation}),
 * outside the transaction, so a failed commit is translated too. What leaves a service is
 * then a {@link DatabaseFailureException} ({@link OutcomeUnknownException},
 * {@link DatabaseUnavailableException} or {@link QueryCancelledException}) or the failure
 * as it was; the failure package turns each into its HTTP answer.
 * <p>
 * The SQLStates, once:
 * <ul>
 * <li>class 08 (connection exception) and 57P0x (the server shut the session down): the
 * connection is broken. A read may be repeated on a fresh connection. A commit under way
 * may still have happened, except with 08003, a connection already closed before the
 * commit was sent;</li>
 * <li>57014 (query_canceled, a statement past its pool's statement timeout): the
 * statement was too slow and the server cancelled it; the connection is fine. It is not
 * repeated;</li>
 * <li>class 53 (insufficient resources) and 25006 (a read-only node, met by a write after
 * a failover): the database cannot take the request now, and a retry may succeed;</li>
 * <li>a commit that no synchronous standby confirmed is
 * {@link UnconfirmedCommitException} (08007, "transaction resolution unknown").</li>
 * </ul>
 */
public final class DatabaseFailures {

	private static final Logger log = LoggerFactory.getLogger(DatabaseFailures.class);

	private static final String QUERY_CANCELED = "57014";

	private DatabaseFailures() {
	}

	/**
	 * Whether a failure is a broken connection or a server shutdown (08xxx, 57P0x),
	 * rather than a pool without a connection: a read may be repeated on a fresh one.
	 */
	public static boolean isBrokenConnection(Throwable ex) {
		SQLException sql = firstSqlState(ex);
		return sql != null && isBroken(sql.getSQLState());
	}

	/**
	 * Whether a failed commit may still have been committed: the connection broke (class
	 * 08 except 08003) or the server shut the session down (57P0x) during the commit.
	 */
	static boolean isOutcomeUnknown(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && isBroken(state) && !state.equals("08003");
	}

	/**
	 * The service's own exception for a database failure, or {@code ex} itself if none.
	 */
	public static RuntimeException translate(RuntimeException ex) {
		if (ex instanceof DatabaseFailureException) {
			// Already translated, by a nested service call.
			return ex;
		}
		if (ExceptionUtils.throwableOfType(ex, UnconfirmedCommitException.class) != null) {
			// Logged and counted where it was detected (SynchronousCommitCheck).
			return new OutcomeUnknownException(ex);
		}
		if (isQueryCancelled(ex)) {
			log.warn("Statement cancelled by the database: {}", ex.toString());
			return new QueryCancelledException(ex);
		}
		if (isUnavailable(ex)) {
			log.warn("Database unavailable: {}", ex.toString());
			return new DatabaseUnavailableException(ex);
		}
		return ex;
	}

	/**
	 * Whether the server cancelled a statement (57014), such as one past its statement
	 * timeout. Not a broken connection: it is not retried.
	 */
	static boolean isQueryCancelled(Throwable ex) {
		SQLException sql = firstSqlState(ex);
		return sql != null && QUERY_CANCELED.equals(sql.getSQLState());
	}

	/**
	 * Connection failures, pool timeouts, shutdowns and read-only nodes: worth a retry.
	 */
	static boolean isUnavailable(Throwable ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof DataAccessResourceFailureException || t instanceof TransientDataAccessException
					|| t instanceof CannotCreateTransactionException || t instanceof SQLTransientException) {
				return true;
			}
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				String state = sql.getSQLState();
				if (isBroken(state) || state.startsWith("53") || state.equals("25006")) {
					return true;
				}
			}
		}
		return false;
	}

	private static boolean isBroken(String state) {
		return state.startsWith("08") || state.startsWith("57P");
	}

	private static SQLException firstSqlState(Throwable ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				return sql;
			}
		}
		return null;
	}

	/** Translates what a service call throws; see {@link DatabaseFailureTranslation}. */
	static final class Interceptor implements MethodInterceptor {

		@Override
		public Object invoke(MethodInvocation invocation) throws Throwable {
			try {
				return invocation.proceed();
			}
			catch (RuntimeException ex) {
				throw translate(ex);
			}
		}

	}

}
