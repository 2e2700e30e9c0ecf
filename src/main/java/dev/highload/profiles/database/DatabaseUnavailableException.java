package dev.highload.profiles.database;

/**
 * The database cannot serve the request right now (no connection, a node shutting down, a
 * read-only node): nothing was written, and a retry shortly may succeed.
 */
public final class DatabaseUnavailableException extends DatabaseFailureException {

	DatabaseUnavailableException(Throwable cause) {
		super("The database cannot serve the request right now", cause);
	}

}
