package dev.highload.profiles.user;

import java.io.UnsupportedEncodingException;
import java.net.URI;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.highload.profiles.auth.AuthFailures;
import dev.highload.profiles.auth.RegistrationThrottle;
import dev.highload.profiles.auth.TokenService;
import dev.highload.profiles.database.DatabaseFailures;
import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.routing.WalPosition;
import dev.highload.profiles.input.ProblemOutcome;
import dev.highload.profiles.consistency.ConsistencyTokens;
import dev.highload.profiles.consistency.TestConsistencyTokens;
import dev.highload.profiles.input.UnstorableText;
import dev.highload.profiles.input.WebProperties;
import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.willAnswer;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * The controller's HTTP shape, with the service mocked: errors the cluster rarely
 * produces on demand.
 */
// The slice includes the input package's filters, interceptors and advice, but not its
// configuration classes: the JSON rules are added, so bodies are read as in the service.
@Import(TestConsistencyTokens.class)
@WebMvcTest(controllers = UserController.class,
		includeFilters = @ComponentScan.Filter(type = FilterType.REGEX,
				pattern = "dev\\.highload\\.profiles\\.input\\.Strict(JsonConfiguration|ParameterBinding)"))
// The body-limit filter needs its settings.
@EnableConfigurationProperties(WebProperties.class)
class UserControllerTests {

	@Autowired
	MockMvcTester mvc;

	@MockitoBean
	UserService users;

	@Autowired
	ConsistencyTokens consistencyTokens;

	@BeforeEach
	void positionAfterWrite() {
		given(this.users.positionAfterWrite()).willReturn(new WalPosition(0x16B3748L));
	}

	@MockitoBean
	Registrations registrations;

	@MockitoBean
	TokenService tokens;

	@MockitoBean
	RegistrationThrottle registrationThrottle;

	@Test
	void aDatabaseThatCannotBeReachedIs503WithRetryAfter() {
		given(this.users.get(any(), any()))
			.willThrow(DatabaseFailures.translate(new DataAccessResourceFailureException("connection refused",
					new SQLException("Connection to 127.0.0.1:15433 refused", "08001"))));
		assertThat(this.mvc.get().uri("/user/{id}", UUID.randomUUID())).hasStatus(503)
			.hasHeader("Retry-After", "1")
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.extractingPath("$.title")
			.isEqualTo("Database unavailable");
	}

	/**
	 * Beside RFC 9457's members, the OTUS Highload Architect API's: message (a string),
	 * code (an integer) and request_id.
	 */
	@Test
	void a503AlsoCarriesTheMessageAndCodeOfTheOtusApi() throws Exception {
		given(this.users.get(any(), any()))
			.willThrow(DatabaseFailures.translate(new DataAccessResourceFailureException("connection refused",
					new SQLException("Connection to 127.0.0.1:15433 refused", "08001"))));
		MvcTestResult result = this.mvc.get().uri("/user/get/{id}", UUID.randomUUID()).exchange();
		assertThat(result).hasStatus(503);
		JsonNode problem = JsonMapper.builder().build().readTree(result.getResponse().getContentAsString());
		assertThat(problem.get("message").isString()).isTrue();
		assertThat(problem.get("message").asString()).isEqualTo(problem.get("detail").asString());
		assertThat(problem.get("code").isInt()).isTrue();
		assertThat(problem.get("code").asInt()).isEqualTo(503);
		assertThat(problem.get("request_id").isString()).isTrue();
		assertThat(problem.get("title").asString()).isEqualTo("Database unavailable");
	}

	@Test
	void aProblemBelow500HasNoMessageOrCode() {
		assertThat(this.mvc.get().uri("/user/not-an-id")).hasStatus(400)
			.bodyJson()
			.doesNotHavePath("$.message")
			.doesNotHavePath("$.code");
	}

	/**
	 * Allow names what the path serves: /user/{id} does not take in its siblings, whose
	 * other methods are 405, not a 400 for a malformed id.
	 */
	@Test
	void allowListsOnlyWhatEachPathServes() {
		Map<String, String> allowed = new TreeMap<>();
		for (String path : List.of("/user/register", "/user/search", "/user/me", "/user/" + UUID.randomUUID(),
				"/user/get/" + UUID.randomUUID(), "/user/registers", "/user/meow")) {
			MvcTestResult options = this.mvc.options().uri(path).exchange();
			assertThat(options).as(path).hasStatus(200);
			allowed.put(path.replaceAll("[0-9a-f-]{36}", "{id}"), options.getResponse().getHeader("Allow"));
		}
		assertThat(allowed).containsExactlyInAnyOrderEntriesOf(Map.of("/user/register", "POST,OPTIONS", "/user/search",
				"GET,HEAD,OPTIONS", "/user/me", "GET,HEAD,OPTIONS", "/user/{id}", "GET,HEAD,OPTIONS", "/user/get/{id}",
				"GET,HEAD,OPTIONS", "/user/registers", "GET,HEAD,OPTIONS", "/user/meow", "GET,HEAD,OPTIONS"));
		assertThat(this.mvc.get().uri("/user/register")).hasStatus(405).hasHeader("Allow", "POST,OPTIONS");
		assertThat(this.mvc.post().uri("/user/search")).hasStatus(405).hasHeader("Allow", "GET,HEAD,OPTIONS");
		assertThat(this.mvc.get().uri("/user/registers")).hasStatus(400);
	}

	@Test
	void aTransactionThatCannotStartIs503() {
		given(this.registrations.register(any(), any(), any()))
			.willThrow(DatabaseFailures.translate(new CannotCreateTransactionException("no connection")));
		assertThat(this.mvc.post()
			.uri("/user/register")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"first_name\":\"Ivan\",\"second_name\":\"Petrov\",\"birthdate\":\"1990-01-01\","
					+ "\"password\":\"secret-password\"}"))
			.hasStatus(503)
			.hasHeader("Retry-After", "1");
	}

	@Test
	void every503ToARegistrationNamesTheKeyToRetryWith() {
		given(this.registrations.register(any(), any(), any())).willAnswer((call) -> {
			throw DatabaseFailures.translate(new CannotCreateTransactionException("no connection"));
		});
		Map<String, String> sent = new LinkedHashMap<>();
		sent.put("\"client-key\"", "client-key");
		sent.put("client-key", "client-key");
		sent.put("\"with \\\"quote\\\"\"", "with \"quote\"");
		sent.put(null, null);
		sent.forEach((header, key) -> {
			var request = this.mvc.post()
				.uri("/user/register")
				.contentType(MediaType.APPLICATION_JSON)
				.content(registration("city", "\"Moscow\""));
			if (header != null) {
				request = request.header("Idempotency-Key", header);
			}
			MvcTestResult result = request.exchange();
			assertThat(result).as(String.valueOf(header)).hasStatus(503).hasHeader("Retry-After", "1");
			JsonNode problem = json(result);
			String named = problem.path("idempotency_key").asString();
			if (key != null) {
				assertThat(named).isEqualTo(key);
			}
			else {
				// Made by the server: a random UUID.
				assertThat(UUID.fromString(named).toString()).isEqualTo(named);
			}
			assertThat(problem.path("detail").asString()).as(String.valueOf(header))
				.startsWith("The database cannot serve this request right now; retry shortly. Retry with "
						+ "Idempotency-Key: " + new IdempotencyKey(named).headerValue() + " and the same body");
			assertThat(problem.path("title").asString()).isEqualTo("Database unavailable");
		});
		// Quoted or bare, the same key.
		verify(this.registrations, times(2)).register(any(), eq(new IdempotencyKey("client-key")), any());
	}

	@Test
	void aKeyIsPassedOnUnquotedAndARequestWithoutOneGetsARandomOne() {
		given(this.registrations.register(any(), any(), any())).willReturn(UUID.randomUUID());
		assertThat(register(registration("city", "\"Moscow\""), "\"a\\\\b\"")).hasStatus(200);
		verify(this.registrations).register(any(), eq(new IdempotencyKey("a\\b")), any());
		assertThat(register(registration("city", "\"Moscow\""))).hasStatus(200);
		assertThat(register(registration("city", "\"Moscow\""))).hasStatus(200);
		ArgumentCaptor<IdempotencyKey> keys = ArgumentCaptor.forClass(IdempotencyKey.class);
		verify(this.registrations, times(3)).register(any(), keys.capture(), any());
		assertThat(keys.getAllValues().subList(1, 3)).doesNotHaveDuplicates()
			.allSatisfy((key) -> assertThat(UUID.fromString(key.value()).toString()).isEqualTo(key.value()));
	}

	@Test
	void anInvalidOrRepeatedKeyIs400NamingTheHeaderBeforeAnyWork() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String header : new String[] { "", "\"\"", "\"open", "\"a\";b=1", "k".repeat(256), "a\u0001b",
				"\u00c3\u00a9" }) {
			outcomes.put(header, ProblemOutcome.of(register(registration("city", "\"Moscow\""), header)));
			expected.put(header, "400 Idempotency-Key");
		}
		outcomes.put("twice",
				ProblemOutcome.of(this.mvc.post()
					.uri("/user/register")
					.contentType(MediaType.APPLICATION_JSON)
					.content(registration("city", "\"Moscow\""))
					.header("Idempotency-Key", "a", "a")
					.exchange()));
		expected.put("twice", "400 Idempotency-Key");
		assertThat(outcomes).isEqualTo(expected);
		verify(this.registrations, never()).register(any(), any(), any());
		verify(this.registrationThrottle, never()).acquire(any());
	}

	@Test
	void aKeyInProgressIs409WithRetryAfterAndAKeyReusedIs422() {
		given(this.registrations.register(any(), any(), any())).willAnswer((call) -> {
			throw IdempotencyKeyException.inProgress();
		});
		assertThat(register(registration("city", "\"Moscow\""), "k")).hasStatus(409)
			.hasHeader("Retry-After", "1")
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.extractingPath("$.detail")
			.asString()
			.startsWith("A request with this Idempotency-Key is in progress");
		willAnswer((call) -> {
			throw IdempotencyKeyException.reused();
		}).given(this.registrations).register(any(), any(), any());
		assertThat(register(registration("city", "\"Moscow\""), "k")).hasStatus(422)
			.doesNotContainHeader("Retry-After")
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.extractingPath("$.detail")
			.asString()
			.startsWith("Idempotency-Key reused with a different request");
	}

	@Test
	void anUnexpectedErrorIs500WithoutInternals() throws Exception {
		given(this.users.get(any(), any())).willThrow(new IllegalStateException("secret internal detail"));
		var result = this.mvc.get().uri("/user/{id}", UUID.randomUUID()).exchange();
		assertThat(result).hasStatus(500).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(result.getResponse().getContentAsString()).doesNotContain("IllegalStateException",
				"secret internal detail", "at dev.");
		assertThat(result).bodyJson().extractingPath("$.request_id").asString().isNotBlank();
	}

	@Test
	void problemsAreProblemJsonEvenWhenTheClientAsksForJson() {
		assertThat(this.mvc.get().uri("/user/not-a-uuid").accept(MediaType.APPLICATION_JSON)).hasStatus(400)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
	}

	@Test
	void aSearchPassesItsPrefixesUntouched() {
		UserProfile profile = new UserProfile(UUID.randomUUID().toString(), "A%_\\", "B", "1990-01-01", null, null);
		given(this.users.search(eq(new SearchQuery("A%_\\", "B", null, 100)), any()))
			.willReturn(positioned(List.of(EncodedProfile.of(profile))));
		assertThat(this.mvc.get().uri("/user/search?first_name={f}&last_name=B", "A%_\\")).hasStatus(200)
			.bodyJson()
			.extractingPath("$[0].first_name")
			.isEqualTo("A%_\\");
	}

	@Test
	void aFullPageLinksTheNextOne() {
		UUID last = UUID.randomUUID();
		given(this.users.search(any(), any())).willReturn(positioned(List.of(
				EncodedProfile.of(new UserProfile(UUID.randomUUID().toString(), "A", "B", "1990-01-01", null, null)),
				EncodedProfile.of(new UserProfile(last.toString(), "A", "B", "1990-01-01", null, null)))));
		assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=2")).hasStatus(200)
			.headers()
			.hasValue("Link",
					"<http://localhost/user/search?first_name=A&last_name=B&limit=2&after=" + last + ">; rel=\"next\"");
		assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=3")).hasStatus(200)
			.doesNotContainHeader("Link");
	}

	/**
	 * The token is judged when the handler asks for the position: a request without a
	 * bearer token is 401 whatever its consistency token, and an empty limit is named
	 * before a forged token.
	 */
	@Test
	void anotherFaultIsAnsweredBeforeAForgedConsistencyToken() {
		given(this.tokens.authenticate(null)).willThrow(AuthFailures.missingToken());
		String forged = "7fffffffffffffff.test.AAAAAAAAAAAAAAAAAAAAAA";
		assertThat(this.mvc.get().uri("/user/me").header("Consistency-Token", forged)).hasStatus(401);
		assertThat(this.mvc.get().uri("/user/me").cookie(new Cookie("consistency_token", forged))).hasStatus(401)
			.doesNotContainHeader("Set-Cookie");
		assertThat(
				this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=").header("Consistency-Token", forged))
			.bodyJson()
			.extractingPath("$.errors[0].field")
			.isEqualTo("limit");
		assertThat(this.mvc.get().uri("/user/{id}", UUID.randomUUID()).header("Consistency-Token", forged))
			.hasStatus(400)
			.bodyJson()
			.extractingPath("$.errors[0].field")
			.isEqualTo("header Consistency-Token");
		verify(this.users, never()).get(any(), any());
	}

	@Test
	void anEmptyLimitOrAfterIsRejectedRatherThanTakenAsAbsent() {
		for (String query : new String[] { "limit=", "after=" }) {
			assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&" + query)).hasStatus(400)
				.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
				.bodyJson()
				.extractingPath("$.errors[0].field")
				.isEqualTo(query.substring(0, query.length() - 1));
		}
	}

	@Test
	void onlyCanonicalUuidsAreIds() {
		for (String id : new String[] { "1-1-1-1-1", "0190f3c27b1e7a3d9c4e1234567890ab",
				"urn:uuid:0190f3c2-7b1e-7a3d-9c4e-1234567890ab", "0190f3c2-7b1e-7a3d-9c4e-1234567890ab0" }) {
			assertThat(this.mvc.get().uri("/user/{id}", id)).as(id)
				.hasStatus(400)
				.bodyJson()
				.extractingPath("$.errors[0].field")
				.isEqualTo("id");
			assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&after={id}", id)).as(id)
				.hasStatus(400);
		}
		// Braces are escaped in a path, and an escaped path is refused before binding.
		assertThat(this.mvc.get().uri("/user/{id}", "{0190f3c2-7b1e-7a3d-9c4e-1234567890ab}")).hasStatus(400);
		UUID id = UUID.fromString("0190F3C2-7B1E-7A3D-9C4E-1234567890AB");
		given(this.users.get(eq(id), any()))
			.willReturn(positioned(new UserProfile(id.toString(), "A", "B", "1990-01-01", null, null)));
		assertThat(this.mvc.get().uri("/user/{id}", "0190F3C2-7B1E-7A3D-9C4E-1234567890AB")).hasStatus(200);
	}

	/**
	 * A read answers the position it saw as a token and its value alone as the body, at
	 * both paths of a profile and in a search, whose own headers stay.
	 */
	@Test
	void aReadAnswersItsPositionAndItsValueAlone() {
		UUID id = UUID.randomUUID();
		UserProfile profile = new UserProfile(id.toString(), "A", "B", "1990-01-01", null, null);
		given(this.users.get(eq(id), any())).willReturn(positioned(profile));
		given(this.users.search(any(), any())).willReturn(positioned(List.of(EncodedProfile.of(profile))));
		for (String path : List.of("/user/" + id, "/user/get/" + id, "/user/search?first_name=A&last_name=B&limit=1")) {
			MvcTestResult result = this.mvc.get().uri(path).exchange();
			assertThat(result).as(path).hasStatus(200).hasContentType(MediaType.APPLICATION_JSON);
			assertThat(this.consistencyTokens.offset(result.getResponse().getHeader(ConsistencyTokens.HEADER))).as(path)
				.isEqualTo(0x16B3748L);
			String body = path.contains("search") ? "$[0]" : "$";
			assertThat(result).as(path).bodyJson().extractingPath(body + ".id").isEqualTo(id.toString());
			assertThat(result).as(path).bodyJson().extractingPath(body + ".first_name").isEqualTo("A");
			assertThat(result).as(path).bodyJson().doesNotHavePath("$.value").doesNotHavePath("$.seen");
		}
		assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=1")).headers()
			.containsHeader(HttpHeaders.LINK);
	}

	@Test
	void aGetThatDeclaresAMalformedMultipartBodyIsServedNormally() {
		UUID id = UUID.randomUUID();
		given(this.users.get(eq(id), any()))
			.willReturn(positioned(new UserProfile(id.toString(), "A", "B", "1990-01-01", null, null)));
		assertThat(this.mvc.get().uri("/user/{id}", id).contentType("multipart/form-data")).hasStatus(200);
	}

	/**
	 * PostgreSQL's text cannot hold U+0000 (SQLState 22021), and an unpaired UTF-16
	 * surrogate has no UTF-8 form: the driver's encoder writes '?' instead, and a
	 * password's hash is computed over a guess. Neither may reach the service.
	 */
	@Test
	void textThatCannotBeStoredAsSentIsRejectedNamingTheField() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String field : UnstorableText.REGISTRATION_FIELDS) {
			for (String value : UnstorableText.JSON_LITERALS) {
				String key = field + " = \"" + value + "\"";
				outcomes.put(key, ProblemOutcome.of(register(registration(field, "\"" + value + "\""))));
				expected.put(key, "400 " + field);
			}
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.registrations, never()).register(any(), any(), any());
	}

	@Test
	void aRepeatedJsonKeyIsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String field : new String[] { "first_name", "biography", "password", "birthdate" }) {
			String body = registration("biography", "\"Tests\"").replace("{",
					"{\"" + field + "\":" + (field.equals("birthdate") ? "\"1991-02-03\"" : "\"Other\"") + ",");
			outcomes.put(body, ProblemOutcome.of(register(body)));
			expected.put(body, "400 " + field);
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.registrations, never()).register(any(), any(), any());
	}

	/**
	 * Dates are read as the document's {@code format: date} says, whole: a time of day is
	 * not silently dropped and spaces are not trimmed; dates outside the allowed range
	 * (and PostgreSQL's, 4713 BC to 5874897 AD) are refused before any SQL.
	 */
	@Test
	void aBirthdateIsADateAndNothingElse() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String date : new String[] { "1990-01-01T12:00:00", "1990-01-01T00:00:00Z", " 1990-01-01", "1990-01-01 ",
				"+1990-01-01", "19900101", "1990-1-1", "1990-02-30", "0000-01-01", "-4713-01-01", "+5874898-01-01",
				"+999999999-12-31", "1990-01-01\\u0000" }) {
			outcomes.put(date, ProblemOutcome.of(register(registration("birthdate", "\"" + date + "\""))));
			expected.put(date, "400 birthdate");
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.registrations, never()).register(any(), any(), any());
	}

	@Test
	void aRepeatedQueryParameterIsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		Map<String, String> repeated = Map.of("first_name=A&first_name=B&last_name=C", "first_name",
				"first_name=A&last_name=C&last_name=C", "last_name", "first_name=A&last_name=B&limit=1&limit=2",
				"limit", "first_name=A&last_name=B&limit=5&limit=5", "limit", "first_name=A&last_name=B&first_name=",
				"first_name", "first_name=A&last_name=B&after=" + UUID.randomUUID() + "&after=" + UUID.randomUUID(),
				"after", "first_name=A&last_name=B&first%5Fname=A", "first_name");
		repeated.forEach((query, name) -> {
			outcomes.put(query, ProblemOutcome.of(this.mvc.get().uri(URI.create("/user/search?" + query)).exchange()));
			expected.put(query, "400 " + name);
		});
		assertThat(outcomes).isEqualTo(expected);
		verify(this.users, never()).search(any(), any());
	}

	/**
	 * Query parameters are percent-encoded UTF-8. Bytes that are not UTF-8 (a stray
	 * continuation byte, an overlong form, an encoded surrogate, a truncated sequence, a
	 * code point above U+10FFFF) are decoded to U+FFFD, which would then be searched for
	 * as if it had been sent.
	 */
	@Test
	// URI.create: a template would encode each '%' again.
	void aQueryParameterThatIsNotUtf8IsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String bad : new String[] { "%FF", "A%80", "%C0%80", "%C1%81", "%ED%A0%80", "%E2%82", "%F4%90%80%80" }) {
			outcomes.put(bad, ProblemOutcome
				.of(this.mvc.get().uri(URI.create("/user/search?first_name=A&last_name=" + bad)).exchange()));
			expected.put(bad, "400 last_name");
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.users, never()).search(any(), any());
	}

	@Test
	void aLimitIsADecimalIntegerAndNothingElse() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String limit : new String[] { "0x10", "%2310", "%205", "5%20", "+5", "1e2", "99999999999999999999",
				"2147483648", "-1", "0", "1001" }) {
			outcomes.put(limit, ProblemOutcome
				.of(this.mvc.get().uri(URI.create("/user/search?first_name=A&last_name=B&limit=" + limit)).exchange()));
			expected.put(limit, "400 limit");
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.users, never()).search(any(), any());
	}

	private MvcTestResult register(String body) {
		return this.mvc.post().uri("/user/register").contentType(MediaType.APPLICATION_JSON).content(body).exchange();
	}

	private MvcTestResult register(String body, String idempotencyKey) {
		return this.mvc.post()
			.uri("/user/register")
			.contentType(MediaType.APPLICATION_JSON)
			.content(body)
			.header("Idempotency-Key", idempotencyKey)
			.exchange();
	}

	private static JsonNode json(MvcTestResult result) {
		try {
			return JsonMapper.shared().readTree(result.getResponse().getContentAsString());
		}
		catch (UnsupportedEncodingException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A registration body with one field's JSON value replaced.
	 * @param field the JSON name
	 * @param json the value as JSON text
	 * @return the body
	 */
	static String registration(String field, String json) {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("first_name", "\"Ivan\"");
		fields.put("second_name", "\"Petrov\"");
		fields.put("birthdate", "\"1990-01-01\"");
		fields.put("biography", "\"Tests\"");
		fields.put("city", "\"Moscow\"");
		fields.put("password", "\"secret-password\"");
		fields.put(field, json);
		StringBuilder body = new StringBuilder("{");
		fields.forEach((name, value) -> body.append((body.length() > 1) ? "," : "")
			.append('"')
			.append(name)
			.append("\":")
			.append(value));
		return body.append('}').toString();
	}

	private static <T> Positioned<T> positioned(T value) {
		return new Positioned<>(value, WalPosition.NONE, new WalPosition(0x16B3748L), true);
	}

}
