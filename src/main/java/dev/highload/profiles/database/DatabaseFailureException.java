package dev.highload.profiles.database;

/**
 * What a database failure meant for the request that met it, as {@link DatabaseFailures}
 * decided once: the database could not serve it, it was cancelled, or a write's outcome
 * is unknown. How a client is told is not routing's business (the failure package answers
 * each).
 */
public abstract sealed class DatabaseFailureException extends RuntimeException
		permits DatabaseUnavailableException, OutcomeUnknownException, QueryCancelledException {

	DatabaseFailureException(String message, Throwable cause) {
		super(message, cause);
	}

}
