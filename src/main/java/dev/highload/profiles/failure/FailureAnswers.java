package dev.highload.profiles.failure;

import dev.highload.profiles.auth.AuthenticationFailedException;
import dev.highload.profiles.auth.HashingOverloadedException;
import dev.highload.profiles.auth.TooManyAttemptsException;
import dev.highload.profiles.database.DatabaseFailureException;
import dev.highload.profiles.database.OutcomeUnknownException;
import dev.highload.profiles.database.QueryCancelledException;
import dev.highload.profiles.user.IdempotencyKeyException;
import dev.highload.profiles.user.UnfinishedRegistrationException;
import dev.highload.profiles.user.UserNotFoundException;
import dev.highload.profiles.consistency.ConsistencyTokens;
import dev.highload.profiles.problem.Problems;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The one place where what the service reports becomes an HTTP answer: status, title,
 * detail and headers of the RFC 9457 problem for each exception the features and the
 * database plumbing throw. Those exceptions say what happened and know nothing of HTTP;
 * the texts a client reads are here, once.
 * <ul>
 * <li>a failure that may pass (the database cannot serve the request, a statement was
 * cancelled, a write's outcome is unknown, the hashing queue is full): 503 with
 * {@code Retry-After: 1}; to a registration, also the Idempotency-Key to retry it
 * with;</li>
 * <li>no user with the id: 404, with the position the read saw, as every read's answer
 * has;</li>
 * <li>no or bad credentials: 401 with the {@code WWW-Authenticate} challenge of RFC
 * 6750;</li>
 * <li>attempts used up: 429 with the seconds to wait in {@code Retry-After};</li>
 * <li>an Idempotency-Key in use: 409 with {@code Retry-After: 1}; reused for another
 * registration: 422.</li>
 * </ul>
 * Asked before the input package's advice, which answers everything else (invalid input,
 * and a 500 for the unexpected).
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class FailureAnswers {

	/** The seconds after which a failure that may pass is worth a retry. */
	private static final String RETRY_SHORTLY = "1";

	private final ConsistencyTokens consistencyTokens;

	FailureAnswers(ConsistencyTokens consistencyTokens) {
		this.consistencyTokens = consistencyTokens;
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> databaseFailure(DatabaseFailureException ex, HttpServletRequest request) {
		return retryLater(problem(ex), request);
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> hashingOverloaded(HashingOverloadedException ex, HttpServletRequest request) {
		return retryLater(problem(ex), request);
	}

	/**
	 * The registration's 503 names its key (the {@code idempotency_key} member and the
	 * detail): every such registration may be retried safely with it, and after "Outcome
	 * unknown" only a retry with it can tell whether the user exists.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> unfinishedRegistration(UnfinishedRegistrationException ex,
			HttpServletRequest request) {
		ProblemDetail problem = (ex.getCause() instanceof DatabaseFailureException database) ? problem(database)
				: problem((HashingOverloadedException) ex.getCause());
		problem.setProperty("idempotency_key", ex.key());
		problem.setDetail(problem.getDetail() + ". Retry with " + ex.keyField()
				+ " and the same body: the user is then registered once, whatever happened to this attempt");
		return retryLater(problem, request);
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> userNotFound(UserNotFoundException ex, HttpServletRequest request) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(ConsistencyTokens.HEADER, this.consistencyTokens.token(ex.seen().offset()));
		return answer(problem(HttpStatus.NOT_FOUND, "User not found", "No user with id " + ex.id()), headers, request);
	}

	/**
	 * One fixed detail for a failed login whatever went wrong, so that the answer does
	 * not tell an unknown id from a wrong password.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> authenticationFailed(AuthenticationFailedException ex, HttpServletRequest request) {
		String detail = switch (ex.reason()) {
			case BAD_CREDENTIALS -> "Invalid id or password";
			case MISSING_TOKEN -> "A bearer token is required";
			case INVALID_TOKEN -> "The bearer token is invalid or expired";
		};
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.WWW_AUTHENTICATE, (ex.reason() == AuthenticationFailedException.Reason.INVALID_TOKEN)
				? "Bearer error=\"invalid_token\"" : "Bearer");
		return answer(problem(HttpStatus.UNAUTHORIZED, "Unauthorized", detail), headers, request);
	}

	/**
	 * The same words whether the account must wait or the address is blocked, and whether
	 * or not the id exists.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> tooManyAttempts(TooManyAttemptsException ex, HttpServletRequest request) {
		String detail = switch (ex.attempts()) {
			case LOGINS -> "Too many failed logins; retry after the time in Retry-After";
			case REGISTRATIONS -> "Too many registrations from this address; retry after the time in Retry-After";
		};
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, Long.toString(ex.retryAfterSeconds()));
		return answer(problem(HttpStatus.TOO_MANY_REQUESTS, "Too many requests", detail), headers, request);
	}

	/** draft-ietf-httpapi-idempotency-key-header-07, section 2.7. */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> idempotencyKey(IdempotencyKeyException ex, HttpServletRequest request) {
		if (ex.isInProgress()) {
			HttpHeaders headers = new HttpHeaders();
			headers.set(HttpHeaders.RETRY_AFTER, RETRY_SHORTLY);
			return answer(
					problem(HttpStatus.CONFLICT, "Request in progress",
							"A request with this Idempotency-Key is in progress; retry after the time in Retry-After"),
					headers, request);
		}
		return answer(
				problem(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency-Key reused",
						"Idempotency-Key reused with a different request; send a new key for a different registration"),
				new HttpHeaders(), request);
	}

	private static ProblemDetail problem(DatabaseFailureException ex) {
		if (ex instanceof OutcomeUnknownException) {
			return unavailable("Outcome unknown", "The write reached the primary, but no replica confirmed it in time: "
					+ "its outcome is unknown. Check whether it took effect before repeating it");
		}
		if (ex instanceof QueryCancelledException) {
			return unavailable("Query timed out", "The database did not finish this request within its statement "
					+ "timeout and cancelled it; nothing was changed. Retry shortly");
		}
		// A DatabaseUnavailableException, the last kind the sealed class permits.
		return unavailable("Database unavailable", "The database cannot serve this request right now; retry shortly");
	}

	private static ProblemDetail problem(HashingOverloadedException ex) {
		return unavailable("Overloaded", "Too many registrations and logins in progress; retry shortly");
	}

	private static ProblemDetail unavailable(String title, String detail) {
		return problem(HttpStatus.SERVICE_UNAVAILABLE, title, detail);
	}

	private static ProblemDetail problem(HttpStatus status, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(title);
		return problem;
	}

	private static ResponseEntity<ProblemDetail> retryLater(ProblemDetail problem, HttpServletRequest request) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, RETRY_SHORTLY);
		return answer(problem, headers, request);
	}

	private static ResponseEntity<ProblemDetail> answer(ProblemDetail problem, HttpHeaders headers,
			HttpServletRequest request) {
		return ResponseEntity.status(problem.getStatus()).headers(headers).body(Problems.identify(problem, request));
	}

}
