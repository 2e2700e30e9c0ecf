package dev.highload.profiles.user;

import java.util.UUID;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/** No user has the requested id, on the replicas or on the primary. */
class UserNotFoundException extends ErrorResponseException {

	UserNotFoundException(UUID id) {
		super(HttpStatus.NOT_FOUND, problem(id), null);
	}

	private static ProblemDetail problem(UUID id) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "No user with id " + id);
		problem.setTitle("User not found");
		return problem;
	}

}
