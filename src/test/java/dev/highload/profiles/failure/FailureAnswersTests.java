package dev.highload.profiles.failure;

import java.net.URI;
import java.util.Map;
import java.util.UUID;

import dev.highload.profiles.auth.AuthFailures;
import dev.highload.profiles.database.DatabaseFailureFixtures;
import dev.highload.profiles.routing.WalPosition;
import dev.highload.profiles.user.UserFailures;
import dev.highload.profiles.consistency.ConsistencyTokens;
import org.junit.jupiter.api.Test;

import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each exception the features and the database plumbing throw, and the answer it gets:
 * status, title, detail, headers and members. The controller tests and the integration
 * tests check the same answers on the wire.
 */
class FailureAnswersTests {

	private final ConsistencyTokens tokens = new ConsistencyTokens(Map.of("k1", new byte[32]));

	private final FailureAnswers answers = new FailureAnswers(this.tokens);

	private final MockHttpServletRequest request = new MockHttpServletRequest("POST", "/user/register");

	@Test
	void aDatabaseThatCannotServeIs503DatabaseUnavailableWithRetryAfter() {
		ResponseEntity<ProblemDetail> answer = this.answers.databaseFailure(DatabaseFailureFixtures.unavailable(),
				this.request);
		assertRetryLater(answer, "Database unavailable",
				"The database cannot serve this request right now; retry shortly");
	}

	@Test
	void aCancelledStatementIs503QueryTimedOut() {
		ResponseEntity<ProblemDetail> answer = this.answers.databaseFailure(DatabaseFailureFixtures.queryCancelled(),
				this.request);
		assertRetryLater(answer, "Query timed out", "The database did not finish this request within its statement "
				+ "timeout and cancelled it; nothing was changed. Retry shortly");
	}

	@Test
	void anUnknownOutcomeIs503OutcomeUnknown() {
		ResponseEntity<ProblemDetail> answer = this.answers.databaseFailure(DatabaseFailureFixtures.outcomeUnknown(),
				this.request);
		assertRetryLater(answer, "Outcome unknown", "The write reached the primary, but no replica confirmed it in "
				+ "time: its outcome is unknown. Check whether it took effect before repeating it");
	}

	@Test
	void aFullHashingQueueIs503Overloaded() {
		ResponseEntity<ProblemDetail> answer = this.answers.hashingOverloaded(AuthFailures.hashingOverloaded(),
				this.request);
		assertRetryLater(answer, "Overloaded", "Too many registrations and logins in progress; retry shortly");
	}

	@Test
	void anUnfinishedRegistrationNamesItsKeyBeforeTheRequestId() {
		ResponseEntity<ProblemDetail> answer = this.answers.unfinishedRegistration(
				UserFailures.unfinished("k\"1", DatabaseFailureFixtures.outcomeUnknown()), this.request);
		assertRetryLater(answer, "Outcome unknown",
				"The write reached the primary, but no replica confirmed it in time: its outcome is unknown. "
						+ "Check whether it took effect before repeating it. Retry with Idempotency-Key: \"k\\\"1\" "
						+ "and the same body: the user is then registered once, whatever happened to this attempt");
		assertThat(answer.getBody().getProperties()).containsEntry("idempotency_key", "k\"1");
		assertThat(answer.getBody().getProperties().keySet()).containsExactly("idempotency_key", "request_id",
				"message", "code");
		ResponseEntity<ProblemDetail> overloaded = this.answers
			.unfinishedRegistration(UserFailures.unfinished("k", AuthFailures.hashingOverloaded()), this.request);
		assertThat(overloaded.getBody().getTitle()).isEqualTo("Overloaded");
		assertThat(overloaded.getBody().getDetail()).startsWith(
				"Too many registrations and logins in progress; retry shortly. Retry with Idempotency-Key: \"k\"");
	}

	@Test
	void anUnknownIdIs404WithThePositionTheReadSaw() {
		UUID id = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8057");
		ResponseEntity<ProblemDetail> answer = this.answers
			.userNotFound(UserFailures.notFound(id, new WalPosition(0x16B3748L)), this.request);
		assertAnswer(answer, 404, "User not found", "No user with id " + id);
		assertThat(this.tokens.offset(answer.getHeaders().getFirst("Consistency-Token"))).isEqualTo(0x16B3748L);
	}

	@Test
	void credentialsThatDoNotIdentifyAUserAre401WithTheirChallenge() {
		ResponseEntity<ProblemDetail> bad = this.answers.authenticationFailed(AuthFailures.badCredentials(),
				this.request);
		assertAnswer(bad, 401, "Unauthorized", "Invalid id or password");
		assertThat(bad.getHeaders().get("WWW-Authenticate")).containsExactly("Bearer");
		ResponseEntity<ProblemDetail> missing = this.answers.authenticationFailed(AuthFailures.missingToken(),
				this.request);
		assertAnswer(missing, 401, "Unauthorized", "A bearer token is required");
		assertThat(missing.getHeaders().get("WWW-Authenticate")).containsExactly("Bearer");
		ResponseEntity<ProblemDetail> invalid = this.answers.authenticationFailed(AuthFailures.invalidToken(),
				this.request);
		assertAnswer(invalid, 401, "Unauthorized", "The bearer token is invalid or expired");
		assertThat(invalid.getHeaders().get("WWW-Authenticate")).containsExactly("Bearer error=\"invalid_token\"");
	}

	@Test
	void attemptsUsedUpAre429WithTheSecondsToWait() {
		ResponseEntity<ProblemDetail> logins = this.answers.tooManyAttempts(AuthFailures.tooManyLogins(7),
				this.request);
		assertAnswer(logins, 429, "Too many requests", "Too many failed logins; retry after the time in Retry-After");
		assertThat(logins.getHeaders().get("Retry-After")).containsExactly("7");
		ResponseEntity<ProblemDetail> registrations = this.answers
			.tooManyAttempts(AuthFailures.tooManyRegistrations(3600), this.request);
		assertAnswer(registrations, 429, "Too many requests",
				"Too many registrations from this address; retry after the time in Retry-After");
		assertThat(registrations.getHeaders().get("Retry-After")).containsExactly("3600");
	}

	@Test
	void aKeyInProgressIs409WithRetryAfterAndAKeyReusedIs422Without() {
		ResponseEntity<ProblemDetail> inProgress = this.answers.idempotencyKey(UserFailures.keyInProgress(),
				this.request);
		assertAnswer(inProgress, 409, "Request in progress",
				"A request with this Idempotency-Key is in progress; retry after the time in Retry-After");
		assertThat(inProgress.getHeaders().get("Retry-After")).containsExactly("1");
		ResponseEntity<ProblemDetail> reused = this.answers.idempotencyKey(UserFailures.keyReused(), this.request);
		assertAnswer(reused, 422, "Idempotency-Key reused",
				"Idempotency-Key reused with a different request; send a new key for a different registration");
		assertThat(reused.getHeaders().containsHeader("Retry-After")).isFalse();
	}

	private void assertRetryLater(ResponseEntity<ProblemDetail> answer, String title, String detail) {
		assertAnswer(answer, 503, title, detail);
		assertThat(answer.getHeaders().get("Retry-After")).containsExactly("1");
		// The OTUS Highload Architect API's 5xx members.
		assertThat(answer.getBody().getProperties()).containsEntry("message", detail).containsEntry("code", 503);
	}

	private void assertAnswer(ResponseEntity<ProblemDetail> answer, int status, String title, String detail) {
		assertThat(answer.getStatusCode().value()).isEqualTo(status);
		ProblemDetail problem = answer.getBody();
		assertThat(problem.getStatus()).isEqualTo(status);
		assertThat(problem.getTitle()).isEqualTo(title);
		assertThat(problem.getDetail()).isEqualTo(detail);
		assertThat(problem.getInstance()).isEqualTo(URI.create("/user/register"));
		assertThat(problem.getProperties()).containsKey("request_id");
		if (status < 500) {
			assertThat(problem.getProperties()).doesNotContainKeys("message", "code");
		}
	}

}
