package dev.highload.profiles;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.highload.profiles.auth.ServiceTokens;
import dev.highload.profiles.auth.TokenService;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The API as a client sees it, end to end on the embedded cluster. */
@IntegrationTest
class UserApiIntegrationTests {

	private static final Duration REPLICATION = Duration.ofSeconds(30);

	@Value("${app.cluster.replica1-port}")
	int replica1Port;

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	MeterRegistry meterRegistry;

	@Autowired
	TokenService tokens;

	/** Searches are eventually consistent: tests wait for the replicas before one. */
	@Autowired
	ClusterNodes cluster;

	ApiClient api;

	ApiClient management;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
		this.management = new ApiClient(this.managementPort);
	}

	@Test
	void registerGetSearchLoginAndMe() throws Exception {
		String first = ApiClient.uniqueName();
		String last = ApiClient.uniqueName();
		UUID id = this.api.register(first, last, "correct horse battery");

		ApiClient.Response profile = this.api.get("/user/" + id);
		assertThat(profile.status()).isEqualTo(200);
		assertThat(profile.json().get("first_name").asString()).isEqualTo(first);
		assertThat(profile.json().get("second_name").asString()).isEqualTo(last);
		assertThat(profile.json().get("birthdate").asString()).isEqualTo("1990-05-17");
		assertThat(this.api.get("/user/get/" + id).body()).isEqualTo(profile.body());

		this.cluster.awaitReplicasCaughtUp(REPLICATION);
		ApiClient.Response found = this.api
			.search(Map.of("first_name", first.substring(0, 4), "last_name", last.substring(0, 3)));
		assertThat(found.status()).isEqualTo(200);
		assertThat(ids(found)).containsExactly(id);

		ApiClient.Response login = this.api.post("/login",
				ApiClient.toJson(Map.of("id", id.toString(), "password", "correct horse battery")));
		assertThat(login.status()).isEqualTo(200);
		String token = login.json().get("token").asString();

		ApiClient.Response me = this.api.get("/user/me", "Authorization", "Bearer " + token);
		assertThat(me.status()).isEqualTo(200);
		assertThat(me.body()).isEqualTo(profile.body());
	}

	@Test
	void tokensSignedWithAPublishedKeyAreRefused() throws Exception {
		UUID id = this.api.register("Published", "Key", "correct horse battery");
		String keyId = ServiceTokens.currentKeyId(this.tokens);
		for (String published : ForgedTokens.PUBLISHED_KEYS) {
			for (String kid : new String[] { keyId, null }) {
				ApiClient.Response me = this.api.get("/user/me", "Authorization",
						"Bearer " + ForgedTokens.sign(id, kid, published));
				assertThat(me.status()).as("signed with a published key, kid " + kid).isEqualTo(401);
			}
		}
		ApiClient.Response login = this.api.post("/login",
				ApiClient.toJson(Map.of("id", id.toString(), "password", "correct horse battery")));
		assertThat(this.api.get("/user/me", "Authorization", "Bearer " + login.json().get("token").asString()).status())
			.as("the control: a token the service issued")
			.isEqualTo(200);
	}

	@Test
	void lengthsCountCharactersAsTheOpenApiDocumentDoes() {
		// Mathematical bold letters (U+1D400..): \p{L}, astral, two UTF-16 units each.
		String bold = new String(Character.toChars(0x1D400)) + new String(Character.toChars(0x1D401));
		String sevenCharacters = "abcde" + bold;
		ApiClient.Response shortPassword = this.api.post("/user/register",
				ApiClient.registration(ApiClient.uniqueName(), ApiClient.uniqueName(), sevenCharacters));
		assertThat(shortPassword.status()).as("7 characters, 9 UTF-16 units").isEqualTo(400);
		assertThat(fields(shortPassword)).containsExactly("password");

		String hundredLetters = bold.repeat(50);
		UUID id = this.api.register(hundredLetters, ApiClient.uniqueName(), "abcdef" + bold);
		assertThat(this.api.get("/user/" + id).json().get("first_name").asString()).isEqualTo(hundredLetters);
		ApiClient.Response tooLong = this.api.post("/user/register",
				ApiClient.registration(hundredLetters + bold, ApiClient.uniqueName(), "long enough"));
		assertThat(fields(tooLong)).containsExactly("first_name");
	}

	@Test
	void aSearchPageIsTheSameJsonAsTheProfilesItHolds() throws Exception {
		String first = ApiClient.uniqueName();
		String last = ApiClient.uniqueName();
		UUID id = this.api.register(first, last, "correct horse battery");
		String profile = this.api.get("/user/" + id).body();
		String path = "/user/search?first_name=" + first + "&last_name=" + last;
		this.cluster.awaitReplicasCaughtUp(REPLICATION);
		// Pages are written from the driver's bytes, single profiles from Strings.
		for (String accept : List.of("application/json", "application/json;charset=UTF-8", "*/*")) {
			ApiClient.Response page = this.api.get(path, "Accept", accept);
			assertThat(page.status()).as(accept).isEqualTo(200);
			assertThat(page.body()).as(accept).isEqualTo("[" + profile + "]");
		}
	}

	@Test
	void profilesCarryExactlyThePublicFields() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		JsonNode profile = this.api.get("/user/" + id).json();
		assertThat(profile.propertyNames()).containsExactlyInAnyOrder("id", "first_name", "second_name", "birthdate",
				"biography", "city");
		assertThat(this.api.get("/user/" + id).body()).doesNotContain("argon2", "password");
	}

	@Test
	void aJustRegisteredUserIsAlwaysFound() {
		for (int i = 0; i < 30; i++) {
			UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
			assertThat(this.api.get("/user/" + id).status()).as("read right after registration %d", i).isEqualTo(200);
		}
	}

	@Test
	void unknownIdIs404AndMalformedIdIs400() {
		ApiClient.Response unknown = this.api.get("/user/" + UUID.randomUUID());
		assertThat(unknown.status()).isEqualTo(404);
		assertProblem(unknown);
		ApiClient.Response malformed = this.api.get("/user/not-a-uuid");
		assertThat(malformed.status()).isEqualTo(400);
		assertProblem(malformed);
		assertThat(fields(malformed)).containsExactly("id");
	}

	static Stream<Arguments> invalidRegistrations() {
		return Stream.of(Arguments.of(change("first_name", "Ivan1"), "first_name"),
				Arguments.of(change("first_name", ""), "first_name"),
				Arguments.of(change("first_name", null), "first_name"),
				Arguments.of(change("second_name", "x".repeat(101)), "second_name"),
				Arguments.of(change("second_name", " Smith"), "second_name"),
				Arguments.of(change("birthdate", LocalDate.now().plusDays(1).toString()), "birthdate"),
				Arguments.of(change("birthdate", "1899-12-31"), "birthdate"),
				Arguments.of(change("birthdate", null), "birthdate"),
				Arguments.of(change("biography", "b".repeat(2001)), "biography"),
				Arguments.of(change("city", "c".repeat(101)), "city"), Arguments.of(change("city", "<script>"), "city"),
				Arguments.of(change("password", "short"), "password"),
				Arguments.of(change("password", "p".repeat(129)), "password"),
				Arguments.of(change("password", null), "password"));
	}

	@ParameterizedTest
	@MethodSource("invalidRegistrations")
	void invalidFieldsAreNamedInTheProblem(Map<String, Object> body, String field) {
		ApiClient.Response response = this.api.post("/user/register", ApiClient.toJson(body));
		assertThat(response.status()).isEqualTo(400);
		assertProblem(response);
		assertThat(fields(response)).containsOnly(field);
	}

	@Test
	void unknownFieldsAndMalformedJsonAreRejected() {
		Map<String, Object> body = change("is_admin", true);
		ApiClient.Response unknown = this.api.post("/user/register", ApiClient.toJson(body));
		assertThat(unknown.status()).isEqualTo(400);
		assertThat(unknown.json().get("detail").asString()).isEqualTo("Unknown field 'is_admin'");

		ApiClient.Response badDate = this.api.post("/user/register",
				ApiClient.toJson(change("birthdate", "1990-13-01")));
		assertThat(badDate.status()).isEqualTo(400);
		assertThat(badDate.json().get("detail").asString()).isEqualTo("Invalid value for 'birthdate'");

		for (String malformed : List.of("{", "", "[]", "{\"first_name\": \"Ivan\",}", "{} {}")) {
			ApiClient.Response response = this.api.post("/user/register", malformed);
			assertThat(response.status()).as(malformed).isEqualTo(400);
			assertProblem(response);
		}
	}

	@Test
	void wildcardsInSearchInputMatchLiterally() throws Exception {
		String last = ApiClient.uniqueName();
		this.api.register("Wilma", last, "secret-password");
		this.cluster.awaitReplicasCaughtUp(REPLICATION);
		assertThat(ids(this.api.search(Map.of("first_name", "Wil", "last_name", last)))).hasSize(1);
		for (String pattern : List.of("%", "_", "W_l", "Wi%", "\\", "W\\il", "%%")) {
			ApiClient.Response response = this.api.search(Map.of("first_name", pattern, "last_name", last));
			assertThat(response.status()).as(pattern).isEqualTo(200);
			assertThat(ids(response)).as(pattern).isEmpty();
		}
	}

	@Test
	void searchPagesAreOrderedByIdAndLinked() throws Exception {
		String last = ApiClient.uniqueName();
		Set<UUID> registered = new HashSet<>();
		for (int i = 0; i < 5; i++) {
			registered.add(this.api.register("Page", last, "secret-password"));
		}
		this.cluster.awaitReplicasCaughtUp(REPLICATION);
		List<UUID> seen = new ArrayList<>();
		String path = "/user/search?first_name=Pag&last_name=" + last + "&limit=2";
		int pages = 0;
		while (path != null) {
			ApiClient.Response page = this.api.get(path);
			assertThat(page.status()).isEqualTo(200);
			List<UUID> ids = ids(page);
			assertThat(ids).hasSizeLessThanOrEqualTo(2);
			seen.addAll(ids);
			pages++;
			path = page.headers()
				.firstValue("Link")
				.map((link) -> link.substring(link.indexOf("/user/search"), link.indexOf('>')))
				.orElse(null);
			if (path != null) {
				assertThat(ids).hasSize(2);
			}
		}
		assertThat(pages).isEqualTo(3);
		assertThat(seen).containsExactlyInAnyOrderElementsOf(registered);
		assertThat(seen.stream().map(UUID::toString).toList()).isSorted();
	}

	@Test
	void searchParametersAreValidated() {
		assertThat(this.api.get("/user/search?first_name=A").status()).isEqualTo(400);
		assertThat(this.api.get("/user/search?last_name=A").status()).isEqualTo(400);
		assertThat(fields(this.api.search(Map.of("first_name", "", "last_name", "A")))).containsExactly("first_name");
		assertThat(fields(this.api.search(Map.of("first_name", "A", "last_name", "x".repeat(101)))))
			.containsExactly("last_name");
		assertThat(fields(this.api.search(Map.of("first_name", "A\u0000", "last_name", "B"))))
			.containsExactly("first_name");
		assertThat(fields(this.api.search(Map.of("first_name", "A", "last_name", "B", "limit", "0"))))
			.containsExactly("limit");
		assertThat(fields(this.api.search(Map.of("first_name", "A", "last_name", "B", "limit", "1001"))))
			.containsExactly("limit");
		assertThat(fields(this.api.search(Map.of("first_name", "A", "last_name", "B", "after", "x"))))
			.containsExactly("after");
		assertThat(this.api.search(Map.of("first_name", "A", "last_name", "B", "limit", "1000")).status())
			.isEqualTo(200);
	}

	@Test
	void unknownIdAndWrongPasswordGetTheSameAnswerAfterTheSameWork() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		double hashesBefore = completedHashes();
		ApiClient.Response wrongPassword = this.api.post("/login",
				ApiClient.toJson(Map.of("id", id.toString(), "password", "wrong-password")));
		double hashesAfterWrongPassword = completedHashes();
		ApiClient.Response unknownId = this.api.post("/login",
				ApiClient.toJson(Map.of("id", UUID.randomUUID().toString(), "password", "wrong-password")));
		double hashesAfterUnknownId = completedHashes();

		assertThat(wrongPassword.status()).isEqualTo(401);
		assertThat(unknownId.status()).isEqualTo(401);
		assertThat(withoutRequestId(wrongPassword)).isEqualTo(withoutRequestId(unknownId));
		assertThat(wrongPassword.headers().firstValue("WWW-Authenticate"))
			.isEqualTo(unknownId.headers().firstValue("WWW-Authenticate"));
		// Each costs exactly one Argon2 verification, so neither answers faster.
		assertThat(hashesAfterWrongPassword - hashesBefore).isEqualTo(1);
		assertThat(hashesAfterUnknownId - hashesAfterWrongPassword).isEqualTo(1);
	}

	@Test
	void bodiesAboveTheLimitGet413BeforeParsing() {
		String tooLarge = ApiClient.toJson(Map.of("first_name", "Ivan", "second_name", "Petrov", "birthdate",
				"1990-05-17", "password", "secret-password", "biography", "x".repeat(17 * 1024)));
		for (ApiClient.Response response : List.of(this.api.post("/user/register", tooLarge),
				this.api.postChunked("/user/register", tooLarge), this.api.post("/login", tooLarge),
				this.api.postChunked("/login", tooLarge))) {
			assertThat(response.status()).isEqualTo(413);
			assertProblem(response);
			assertThat(response.json().get("detail").asString())
				.isEqualTo("The request body is larger than 16384 bytes");
		}
		// Under the limit, the body is parsed and validated as usual.
		String underTheLimit = ApiClient.toJson(Map.of("first_name", "Ivan", "second_name", "Petrov", "birthdate",
				"1990-05-17", "password", "secret-password", "biography", "x".repeat(15 * 1024)));
		assertThat(fields(this.api.post("/user/register", underTheLimit))).containsExactly("biography");
		assertThat(fields(this.api.postChunked("/user/register", underTheLimit))).containsExactly("biography");
	}

	@Test
	void loginValidatesItsBody() {
		ApiClient.Response response = this.api.post("/login", "{\"id\":\"nope\",\"password\":\"x\"}");
		assertThat(response.status()).isEqualTo(400);
		assertThat(this.api.post("/login", "{\"password\":\"x\"}").status()).isEqualTo(400);
	}

	@Test
	void meNeedsAValidUnexpiredToken() throws Exception {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		String token = this.api
			.post("/login", ApiClient.toJson(Map.of("id", id.toString(), "password", "secret-password")))
			.json()
			.get("token")
			.asString();
		assertThat(this.api.get("/user/me", "Authorization", "Bearer " + token).status()).isEqualTo(200);

		assertThat(this.api.get("/user/me").status()).isEqualTo(401);
		assertThat(this.api.get("/user/me", "Authorization", "Basic dXNlcjpwYXNz").status()).isEqualTo(401);
		assertThat(this.api.get("/user/me", "Authorization", "Bearer garbage").status()).isEqualTo(401);
		String tampered = token.substring(0, token.length() - 3) + (token.endsWith("AAA") ? "BBB" : "AAA");
		assertThat(this.api.get("/user/me", "Authorization", "Bearer " + tampered).status()).isEqualTo(401);

		String expired = sign(id, Instant.now().minusSeconds(7200), Instant.now().minusSeconds(60));
		ApiClient.Response expiredResponse = this.api.get("/user/me", "Authorization", "Bearer " + expired);
		assertThat(expiredResponse.status()).isEqualTo(401);
		assertProblem(expiredResponse);
		String valid = sign(id, Instant.now(), Instant.now().plusSeconds(60));
		assertThat(this.api.get("/user/me", "Authorization", "Bearer " + valid).status()).isEqualTo(200);
	}

	@Test
	void problemsCarryTheRequestId() {
		ApiClient.Response response = this.api.get("/user/" + UUID.randomUUID(), "X-Request-Id", "trace-42");
		assertThat(response.headers().firstValue("X-Request-Id")).contains("trace-42");
		assertThat(response.json().get("request_id").asString()).isEqualTo("trace-42");
		ApiClient.Response noRoute = this.api.get("/no/such/path");
		assertThat(noRoute.status()).isEqualTo(404);
		assertProblem(noRoute);
	}

	@Test
	void openApiAndSwaggerUiAreServedOnTheManagementPortOnly() {
		ApiClient.Response docs = this.management.get("/actuator/openapi");
		assertThat(docs.status()).isEqualTo(200);
		assertThat(docs.json().get("paths").propertyNames()).contains("/user/register", "/user/{id}", "/user/get/{id}",
				"/user/search", "/login", "/user/me");
		assertThat(docs.json().get("servers").get(0).get("url").asString()).endsWith(":" + this.port);
		assertThat(this.management.get("/actuator/swagger-ui/index.html").status()).isEqualTo(200);
		assertThat(this.api.get("/actuator/openapi").status()).isEqualTo(404);
		assertThat(this.api.get("/actuator/health").status()).isEqualTo(404);
	}

	@Test
	void healthShowsEveryNodeAndMetricsShowEveryPool() {
		JsonNode nodes = this.management.get("/actuator/health").json().get("components").get("nodes");
		assertThat(nodes.get("status").asString()).isEqualTo("UP");
		List<String> roles = new ArrayList<>();
		nodes.get("details").get("nodes").forEach((node) -> roles.add(node.get("role").asString()));
		assertThat(roles).containsExactlyInAnyOrder("primary", "replica", "replica");
		String metrics = this.management.get("/actuator/prometheus").body();
		assertThat(metrics).contains("hikaricp_connections_active{pool=\"primary\"}",
				"hikaricp_connections_active{pool=\"read-127.0.0.1:" + this.replica1Port + "\"}",
				"http_server_requests_seconds_bucket", "profiles_reads_waited_total", "profiles_reads_primary_total",
				"profiles_reads_rechecked_total");
	}

	/**
	 * Issue 35: the nodes' health comes from the router's monitor; a health check opens
	 * no session (it opened one on every node, each call).
	 */
	@Test
	void aHealthCheckOpensNoSessionOnAnyNode() throws Exception {
		long before = sessions();
		for (int i = 0; i < 20; i++) {
			assertThat(this.management.get("/actuator/health").status()).isEqualTo(200);
		}
		// A session's count reaches the statistics when it ends.
		Thread.sleep(1500);
		assertThat(sessions() - before).as("sessions opened on the nodes by 20 health checks").isLessThanOrEqualTo(3);
	}

	private long sessions() throws SQLException {
		long sessions = 0;
		for (String node : List.of("primary", "replica1", "replica2")) {
			sessions += Long.parseLong(this.cluster.queryValue(node, "postgres",
					"SELECT sessions FROM pg_stat_database WHERE datname = ?", "profiles"));
		}
		return sessions;
	}

	private String sign(UUID id, Instant issued, Instant expires) {
		return ServiceTokens.sign(this.tokens,
				new JWTClaimsSet.Builder().subject(id.toString())
					.issuer("user-profiles")
					.issueTime(Date.from(issued))
					.expirationTime(Date.from(expires))
					.build());
	}

	/**
	 * Verifications done: the hashing timer counts each inside the task, before the
	 * caller's future completes. (The executor's completed-task count is updated after
	 * that, and lagged behind in a CI run.)
	 */
	private double completedHashes() {
		return this.meterRegistry.get("profiles.password.hash").tag("operation", "verify").timer().count();
	}

	static Map<String, Object> change(String field, Object value) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("first_name", "Ivan");
		body.put("second_name", "Petrov");
		body.put("birthdate", "1990-05-17");
		body.put("biography", "Tests");
		body.put("city", "Moscow");
		body.put("password", "secret-password");
		body.put(field, value);
		return body;
	}

	static List<UUID> ids(ApiClient.Response response) {
		List<UUID> ids = new ArrayList<>();
		response.json().forEach((user) -> ids.add(UUID.fromString(user.get("id").asString())));
		return ids;
	}

	static List<String> fields(ApiClient.Response response) {
		List<String> fields = new ArrayList<>();
		JsonNode errors = response.json().get("errors");
		if (errors != null) {
			errors.forEach((error) -> fields.add(error.get("field").asString()));
		}
		return fields.stream().distinct().toList();
	}

	static void assertProblem(ApiClient.Response response) {
		assertThat(response.contentType()).startsWith("application/problem+json");
		JsonNode problem = response.json();
		assertThat(problem.get("status").asInt()).isEqualTo(response.status());
		assertThat(problem.get("request_id").asString()).isNotBlank();
		assertThat(response.body()).doesNotContain("Exception", "\tat ");
	}

	private static JsonNode withoutRequestId(ApiClient.Response response) {
		ObjectNode node = (ObjectNode) response.json();
		node.remove("request_id");
		return node;
	}

}
