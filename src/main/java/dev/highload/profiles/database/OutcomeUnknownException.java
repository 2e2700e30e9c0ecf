package dev.highload.profiles.database;

/**
 * A write reached the primary, but no replica confirmed it in time, or the connection
 * broke during its commit: it may or may not have taken effect.
 */
public final class OutcomeUnknownException extends DatabaseFailureException {

	OutcomeUnknownException(Throwable cause) {
		super("The write reached the primary, but its commit was not confirmed", cause);
	}

}
