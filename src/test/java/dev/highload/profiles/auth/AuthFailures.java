package dev.highload.profiles.auth;

/**
 * The exceptions of auth, made for the tests of the package that answers them
 * (failure.FailureAnswersTests): only auth throws them.
 */
public final class AuthFailures {

	private AuthFailures() {
	}

	public static AuthenticationFailedException badCredentials() {
		return AuthenticationFailedException.badCredentials();
	}

	public static AuthenticationFailedException missingToken() {
		return AuthenticationFailedException.missingToken();
	}

	public static AuthenticationFailedException invalidToken() {
		return AuthenticationFailedException.invalidToken();
	}

	public static TooManyAttemptsException tooManyLogins(long retryAfterSeconds) {
		return TooManyAttemptsException.logins(retryAfterSeconds);
	}

	public static TooManyAttemptsException tooManyRegistrations(long retryAfterSeconds) {
		return TooManyAttemptsException.registrations(retryAfterSeconds);
	}

	public static HashingOverloadedException hashingOverloaded() {
		return new HashingOverloadedException();
	}

}
