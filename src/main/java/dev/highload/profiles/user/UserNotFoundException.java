package dev.highload.profiles.user;

import java.util.UUID;

import dev.highload.profiles.routing.WalPosition;
import dev.highload.profiles.web.ConsistencyTokens;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * No user has the requested id on a node that would show it if it existed
 * ({@link UserService}). The answer carries the position the read saw, as every read's
 * does.
 */
class UserNotFoundException extends ErrorResponseException {

	UserNotFoundException(UUID id, WalPosition seen) {
		super(HttpStatus.NOT_FOUND, problem(id), null);
		getHeaders().set(ConsistencyTokens.HEADER, ConsistencyTokens.token(seen.offset()));
	}

	private static ProblemDetail problem(UUID id) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "No user with id " + id);
		problem.setTitle("User not found");
		return problem;
	}

}
