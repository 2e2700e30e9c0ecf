package dev.highload.profiles.routing;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * The database cannot serve the request right now (no connection, a node shutting down, a
 * read-only node): nothing was written, and a retry shortly may succeed.
 */
public class DatabaseUnavailableException extends ErrorResponseException {

	DatabaseUnavailableException(Throwable cause) {
		super(HttpStatus.SERVICE_UNAVAILABLE, problem(), cause);
		getHeaders().set("Retry-After", "1");
	}

	private static ProblemDetail problem() {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"The database cannot serve this request right now; retry shortly");
		problem.setTitle("Database unavailable");
		return problem;
	}

}
