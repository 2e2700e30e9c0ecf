package dev.highload.profiles.input;

import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * 400 for a request parameter that binding lets through but the API does not accept, in
 * the shape of the other parameter errors: an {@code errors} entry naming it.
 */
public class InvalidParameterException extends ErrorResponseException {

	/**
	 * @param name the parameter
	 * @param message what is wrong with it
	 */
	public InvalidParameterException(String name, String message) {
		super(HttpStatus.BAD_REQUEST, problem(name, message), null);
	}

	private static ProblemDetail problem(String name, String message) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"Invalid value for '" + name + "'");
		problem.setProperty("errors", List.of(Map.of("field", name, "message", message)));
		return problem;
	}

}
