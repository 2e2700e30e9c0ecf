package dev.highload.profiles.routing;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A write reached the primary, but no replica confirmed it in time, or the connection
 * broke during its commit: it may or may not have taken effect.
 */
public class OutcomeUnknownException extends ErrorResponseException {

	OutcomeUnknownException(Throwable cause) {
		super(HttpStatus.SERVICE_UNAVAILABLE, problem(), cause);
		getHeaders().set("Retry-After", "1");
	}

	private static ProblemDetail problem() {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"The write reached the primary, but no replica confirmed it in time: its outcome is unknown. "
						+ "Check whether it took effect before repeating it");
		problem.setTitle("Outcome unknown");
		return problem;
	}

}
