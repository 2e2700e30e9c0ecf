package dev.highload.profiles.routing;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A 503 problem with {@code Retry-After: 1}: the service cannot take the request now, and
 * a retry shortly may succeed. The base of the service's own exceptions for an
 * unavailable database, an unknown outcome and a full hashing queue.
 */
public abstract class RetryLaterException extends ErrorResponseException {

	protected RetryLaterException(String title, String detail, Throwable cause) {
		super(HttpStatus.SERVICE_UNAVAILABLE, problem(title, detail), cause);
		getHeaders().set("Retry-After", "1");
	}

	private static ProblemDetail problem(String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail);
		problem.setTitle(title);
		return problem;
	}

}
