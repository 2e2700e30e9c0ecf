package dev.highload.profiles.auth;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/** The password-hashing queue is full: the client should retry shortly. */
class HashingOverloadedException extends ErrorResponseException {

	HashingOverloadedException() {
		super(HttpStatus.SERVICE_UNAVAILABLE, problem(), null);
		getHeaders().set("Retry-After", "1");
	}

	private static ProblemDetail problem() {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Too many registrations and logins in progress; retry shortly");
		problem.setTitle("Overloaded");
		return problem;
	}

}
