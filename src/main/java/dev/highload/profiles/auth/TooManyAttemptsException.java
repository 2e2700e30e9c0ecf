package dev.highload.profiles.auth;

/**
 * A client has used up its attempts for now, or an account must wait before its next
 * login attempt.
 */
public final class TooManyAttemptsException extends RuntimeException {

	/** Which attempts were used up. */
	public enum Attempts {

		/**
		 * Logins: the account must wait or the address is blocked, told apart nowhere, so
		 * that an answer does not say whether the id exists.
		 */
		LOGINS,

		/** Registrations from one client address. */
		REGISTRATIONS

	}

	private final Attempts attempts;

	private final long retryAfterSeconds;

	private TooManyAttemptsException(Attempts attempts, long retryAfterSeconds) {
		super("Too many " + attempts + "; the next may come in " + retryAfterSeconds + " s");
		this.attempts = attempts;
		this.retryAfterSeconds = retryAfterSeconds;
	}

	static TooManyAttemptsException logins(long retryAfterSeconds) {
		return new TooManyAttemptsException(Attempts.LOGINS, retryAfterSeconds);
	}

	static TooManyAttemptsException registrations(long retryAfterSeconds) {
		return new TooManyAttemptsException(Attempts.REGISTRATIONS, retryAfterSeconds);
	}

	public Attempts attempts() {
		return this.attempts;
	}

	/** The whole seconds until the next attempt may go ahead, at least 1. */
	public long retryAfterSeconds() {
		return this.retryAfterSeconds;
	}

}
