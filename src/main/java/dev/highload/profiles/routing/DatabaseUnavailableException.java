package dev.highload.profiles.routing;

/**
 * The database cannot serve the request right now (no connection, a node shutting down, a
 * read-only node): nothing was written, and a retry shortly may succeed.
 */
public class DatabaseUnavailableException extends RetryLaterException {

	DatabaseUnavailableException(Throwable cause) {
		super("Database unavailable", "The database cannot serve this request right now; retry shortly", cause);
	}

}
