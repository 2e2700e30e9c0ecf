package dev.highload.profiles.auth;

/**
 * A request that needed a user could not be tied to one: no bearer token, a token that is
 * invalid or expired, or a login with an unknown id or a wrong password. Which of the two
 * a login failed on is not kept, so no answer can tell them apart.
 */
public final class AuthenticationFailedException extends RuntimeException {

	/** What was wrong with the request's credentials. */
	public enum Reason {

		/** A login whose id is unknown or whose password is wrong. */
		BAD_CREDENTIALS,

		/** No bearer token in the Authorization header. */
		MISSING_TOKEN,

		/** A bearer token that is malformed, not signed by a known key, or expired. */
		INVALID_TOKEN

	}

	private final Reason reason;

	private AuthenticationFailedException(Reason reason) {
		super("Authentication failed: " + reason);
		this.reason = reason;
	}

	static AuthenticationFailedException badCredentials() {
		return new AuthenticationFailedException(Reason.BAD_CREDENTIALS);
	}

	static AuthenticationFailedException missingToken() {
		return new AuthenticationFailedException(Reason.MISSING_TOKEN);
	}

	static AuthenticationFailedException invalidToken() {
		return new AuthenticationFailedException(Reason.INVALID_TOKEN);
	}

	public Reason reason() {
		return this.reason;
	}

}
