package dev.highload.profiles.auth;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * 429 with Retry-After: a client has used up its attempts for now, or an account must
 * wait before its next login attempt.
 */
class TooManyAttemptsException extends ErrorResponseException {

	private TooManyAttemptsException(String detail, long retryAfterSeconds) {
		super(HttpStatus.TOO_MANY_REQUESTS, problem(detail), null);
		getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
	}

	/**
	 * The same words whether the account must wait or the address is blocked, and whether
	 * or not the id exists.
	 */
	static TooManyAttemptsException logins(long retryAfterSeconds) {
		return new TooManyAttemptsException("Too many failed logins; retry after the time in Retry-After",
				retryAfterSeconds);
	}

	static TooManyAttemptsException registrations(long retryAfterSeconds) {
		return new TooManyAttemptsException(
				"Too many registrations from this address; retry after the time in Retry-After", retryAfterSeconds);
	}

	private static ProblemDetail problem(String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
		problem.setTitle("Too many requests");
		return problem;
	}

}
