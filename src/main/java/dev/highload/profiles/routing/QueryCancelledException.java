package dev.highload.profiles.routing;

/**
 * The database cancelled a statement (SQLState 57014, query_canceled), in practice
 * because it ran past its pool's statement timeout: its transaction was rolled back, so
 * nothing was written. It is not repeated anywhere, since the node that was too slow is
 * no reason to load another one with the same work; the client may retry shortly.
 */
public class QueryCancelledException extends RetryLaterException {

	QueryCancelledException(Throwable cause) {
		super("Query timed out", "The database did not finish this request within its statement timeout and "
				+ "cancelled it; nothing was changed. Retry shortly", cause);
	}

}
