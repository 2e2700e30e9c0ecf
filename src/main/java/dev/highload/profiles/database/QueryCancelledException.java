package dev.highload.profiles.database;

/**
 * The database cancelled a statement (SQLState 57014, query_canceled), in practice
 * because it ran past its pool's statement timeout: its transaction was rolled back, so
 * nothing was written. It is not repeated anywhere, since the node that was too slow is
 * no reason to load another one with the same work; the client may retry shortly.
 */
public final class QueryCancelledException extends DatabaseFailureException {

	QueryCancelledException(Throwable cause) {
		super("The database cancelled a statement past its statement timeout", cause);
	}

}
