package dev.highload.profiles.user;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A registration refused because of what its Idempotency-Key already stands for
 * (draft-ietf-httpapi-idempotency-key-header-07, section 2.7): nothing was written.
 */
class IdempotencyKeyException extends ErrorResponseException {

	private IdempotencyKeyException(HttpStatus status, String title, String detail) {
		super(status, problem(status, title, detail), null);
	}

	/**
	 * 409 with {@code Retry-After: 1}: another request with the key is being processed;
	 * once it has finished, a retry gets its answer.
	 */
	static IdempotencyKeyException inProgress() {
		IdempotencyKeyException ex = new IdempotencyKeyException(HttpStatus.CONFLICT, "Request in progress",
				"A request with this Idempotency-Key is in progress; retry after the time in Retry-After");
		ex.getHeaders().set(HttpHeaders.RETRY_AFTER, "1");
		return ex;
	}

	/**
	 * 422: the key was used by a registration with another body or password. Retrying
	 * cannot help; a different registration needs a new key.
	 */
	static IdempotencyKeyException reused() {
		return new IdempotencyKeyException(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency-Key reused",
				"Idempotency-Key reused with a different request; send a new key for a different registration");
	}

	private static ProblemDetail problem(HttpStatus status, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		return problem;
	}

}
