package dev.highload.profiles.routing;

/**
 * A write reached the primary, but no replica confirmed it in time, or the connection
 * broke during its commit: it may or may not have taken effect.
 */
public class OutcomeUnknownException extends RetryLaterException {

	OutcomeUnknownException(Throwable cause) {
		super("Outcome unknown", "The write reached the primary, but no replica confirmed it in time: its outcome "
				+ "is unknown. Check whether it took effect before repeating it", cause);
	}

}
