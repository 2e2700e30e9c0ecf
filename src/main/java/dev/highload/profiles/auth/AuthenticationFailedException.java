package dev.highload.profiles.auth;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * 401. Login failures carry one fixed detail whatever went wrong, so the response does
 * not tell an unknown id from a wrong password.
 */
class AuthenticationFailedException extends ErrorResponseException {

	private AuthenticationFailedException(String detail, String challenge) {
		super(HttpStatus.UNAUTHORIZED, problem(detail), null);
		getHeaders().set("WWW-Authenticate", challenge);
	}

	static AuthenticationFailedException badCredentials() {
		return new AuthenticationFailedException("Invalid id or password", "Bearer");
	}

	static AuthenticationFailedException missingToken() {
		return new AuthenticationFailedException("A bearer token is required", "Bearer");
	}

	static AuthenticationFailedException invalidToken() {
		return new AuthenticationFailedException("The bearer token is invalid or expired",
				"Bearer error=\"invalid_token\"");
	}

	private static ProblemDetail problem(String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED, detail);
		problem.setTitle("Unauthorized");
		return problem;
	}

}
