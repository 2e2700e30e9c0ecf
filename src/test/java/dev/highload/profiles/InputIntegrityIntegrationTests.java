package dev.highload.profiles;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.highload.profiles.input.UnstorableText;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No input reaches PostgreSQL unchecked, end to end: text it cannot store (U+0000),
 * strings that are not valid Unicode (unpaired surrogates in JSON, bytes that are not
 * UTF-8 in a body or a query string), and ambiguous requests (a JSON key or a query
 * parameter twice) are 400 naming the field, never a 500 and never stored altered; text
 * that is unusual but valid comes back exactly as it was sent.
 */
@IntegrationTest
class InputIntegrityIntegrationTests {

	private static final Duration REPLICATION = Duration.ofSeconds(30);

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	ApiClient api;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
	}

	/**
	 * Each field with U+0000 and with unpaired surrogates, as JSON escapes. Before: a
	 * biography with U+0000 was a 500 (PostgreSQL, SQLState 22021); a biography with an
	 * unpaired surrogate was stored with '?' in its place; a password with one was hashed
	 * over a substitute or failed in the hasher (500).
	 */
	@Test
	void textThatCannotBeStoredAsSentIsRejectedNamingTheField() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String field : UnstorableText.REGISTRATION_FIELDS) {
			for (String value : UnstorableText.JSON_LITERALS) {
				String key = field + " = \"" + value + "\"";
				outcomes.put(key, outcome(this.api.post("/user/register", body(field, "\"" + value + "\""))));
				expected.put(key, "400 " + field);
			}
		}
		assertThat(outcomes).isEqualTo(expected);
	}

	/**
	 * Bytes that are not UTF-8 inside a JSON string: an encoded surrogate (ED A0 80), an
	 * overlong U+0000 (C0 80) and an overlong 'A' (C1 81), a stray continuation byte, a
	 * truncated sequence, a code point above U+10FFFF.
	 */
	@Test
	void aBodyThatIsNotUtf8IsRejectedNamingTheField() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		int[][] sequences = { { 0xED, 0xA0, 0x80 }, { 0xC0, 0x80 }, { 0xC1, 0x81 }, { 0x80 }, { 0xE2, 0x82 },
				{ 0xF4, 0x90, 0x80, 0x80 }, { 0xFF } };
		for (String field : new String[] { "biography", "password" }) {
			for (int[] sequence : sequences) {
				ByteArrayOutputStream bytes = new ByteArrayOutputStream();
				String[] halves = body(field, "\"Iv@an-password\"").split("@");
				bytes.writeBytes(halves[0].getBytes(StandardCharsets.UTF_8));
				StringBuilder key = new StringBuilder(field + " with");
				for (int b : sequence) {
					bytes.write(b);
					key.append(String.format(" %02X", b));
				}
				bytes.writeBytes(halves[1].getBytes(StandardCharsets.UTF_8));
				outcomes.put(key.toString(), outcome(this.api.post("/user/register", bytes.toByteArray())));
				expected.put(key.toString(), "400 " + field);
			}
		}
		assertThat(outcomes).isEqualTo(expected);
	}

	/**
	 * Before: the second password, which differs from the first only where the first has
	 * an unpaired surrogate, logged in to the first one's account.
	 */
	@Test
	void passwordsThatDifferOnlyInUnpairedSurrogatesAreNotTheSamePassword() {
		ApiClient.Response registered = this.api.post("/user/register", body("password", "\"correct-horse-\\ud800x\""));
		assertThat(outcome(registered)).isEqualTo("400 password");
		ApiClient.Response login = this.api.post("/login",
				"{\"id\":\"" + UUID.randomUUID() + "\",\"password\":\"correct-horse-\\udc00\"}");
		assertThat(outcome(login)).isEqualTo("400 password");
	}

	@Test
	void aRepeatedJsonKeyIsRejectedNamingIt() {
		String body = body("biography", "\"Tests\"").replace("{", "{\"biography\":\"First\",");
		assertThat(outcome(this.api.post("/user/register", body))).isEqualTo("400 biography");
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		assertThat(outcome(this.api.post("/login",
				"{\"id\":\"" + id + "\",\"password\":\"wrong-password\",\"password\":\"secret-password\"}")))
			.isEqualTo("400 password");
	}

	/**
	 * Letters outside the Basic Multilingual Plane, combining marks, emoji, U+FFFD sent
	 * on purpose, noncharacters (valid scalar values, Unicode Corrigendum #9) and
	 * U+10FFFF: stored and returned exactly, by id and by search.
	 */
	@Test
	void unusualButValidTextComesBackExactlyAsSent() throws Exception {
		String first = "𝒜𝓁𝒾𝒸ℯ" + ApiClient.uniqueName();
		String last = "Zoe\u0308" + ApiClient.uniqueName();
		String biography = "😀 👩‍👩‍👧 e\u0301 \uFFFD \uFDD0 \uFFFE \uFFFF \uDBFF\uDFFF \uD83F\uDFFE \u200F\u202E ⸻ \\ \" \t\n";
		String city = "Łódź\u0301";
		Map<String, Object> fields = new LinkedHashMap<>();
		fields.put("first_name", first);
		fields.put("second_name", last);
		fields.put("birthdate", "1990-05-17");
		fields.put("biography", biography);
		fields.put("city", city);
		fields.put("password", "🔑\uFFFD\u0301 pässwörd");
		ApiClient.Response registered = this.api.post("/user/register", ApiClient.toJson(fields));
		assertThat(registered.status()).as(registered.body()).isEqualTo(200);
		UUID id = UUID.fromString(registered.json().get("user_id").asString());

		JsonNode profile = this.api.get("/user/" + id).json();
		assertThat(utf8(profile.get("first_name").asString())).isEqualTo(utf8(first));
		assertThat(utf8(profile.get("second_name").asString())).isEqualTo(utf8(last));
		assertThat(utf8(profile.get("biography").asString())).isEqualTo(utf8(biography));
		assertThat(utf8(profile.get("city").asString())).isEqualTo(utf8(city));
		assertThat(this.api
			.post("/login", ApiClient.toJson(Map.of("id", id.toString(), "password", "🔑\uFFFD\u0301 pässwörd")))
			.status()).isEqualTo(200);

		this.cluster.awaitReplicasCaughtUp(REPLICATION);
		ApiClient.Response found = this.api.search(Map.of("first_name", "𝒜𝓁", "last_name", "Zoe\u0308"));
		assertThat(found.status()).isEqualTo(200);
		JsonNode match = null;
		for (JsonNode user : found.json()) {
			if (user.get("id").asString().equals(id.toString())) {
				match = user;
			}
		}
		assertThat(match).isNotNull();
		assertThat(utf8(match.get("biography").asString())).isEqualTo(utf8(biography));
		// U+FFFD searched for on purpose is a character like any other.
		assertThat(this.api.get("/user/search?first_name=%EF%BF%BD&last_name=A").status()).isEqualTo(200);
	}

	/**
	 * Before: every one of these reached the search, the bytes decoded to U+FFFD.
	 */
	@Test
	void aQueryParameterThatIsNotUtf8IsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String bad : new String[] { "%FF", "A%80", "%C0%80", "%C1%81", "%ED%A0%80", "%E2%82", "%F4%90%80%80" }) {
			outcomes.put("last_name=" + bad, outcome(this.api.get("/user/search?first_name=A&last_name=" + bad)));
			expected.put("last_name=" + bad, "400 last_name");
			outcomes.put("first_name=" + bad, outcome(this.api.get("/user/search?last_name=A&first_name=" + bad)));
			expected.put("first_name=" + bad, "400 first_name");
		}
		outcomes.put("first_name=%00", outcome(this.api.get("/user/search?last_name=A&first_name=A%00")));
		expected.put("first_name=%00", "400 first_name");
		assertThat(outcomes).isEqualTo(expected);
	}

	/** Before: "A,B" was searched for, and the first of two limits was taken. */
	@Test
	void aRepeatedQueryParameterIsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		Map<String, String> repeated = Map.of("first_name=A&first_name=B&last_name=C", "first_name",
				"first_name=A&last_name=C&last_name=C", "last_name", "first_name=A&last_name=B&limit=1&limit=2",
				"limit", "first_name=A&last_name=B&after=" + UUID.randomUUID() + "&after=" + UUID.randomUUID(), "after",
				"first_name=A&last_name=B&first%5Fname=A", "first_name");
		repeated.forEach((query, name) -> {
			outcomes.put(query, outcome(this.api.get("/user/search?" + query)));
			expected.put(query, "400 " + name);
		});
		assertThat(outcomes).isEqualTo(expected);
	}

	/**
	 * Ids in paths, the other kinds of input: none of it is text for the database, and
	 * none of it may be a 500. The Authorization header is never stored or queried as
	 * text (only the UUID of a verified token is): anything malformed there is the 401 of
	 * any invalid token, or Tomcat's own 400 for bytes HTTP does not allow.
	 */
	@Test
	void otherInputsAreRefusedWithoutAServerError() {
		Map<String, Integer> statuses = new TreeMap<>();
		for (String path : new String[] { "/user/%FF", "/user/%00", "/user/get/%ED%A0%80", "/user/%C0%AE%C0%AE",
				"/user/search?first_name=A&last_name=B&limit=99999999999999999999",
				"/user/search?first_name=A&last_name=B&limit=0x10",
				"/user/search?first_name=A&last_name=B&after=%FF" }) {
			ApiClient.Response response = this.api.get(path);
			statuses.put(path, response.status());
			UserApiIntegrationTests.assertProblem(response);
		}
		assertThat(statuses).allSatisfy((path, status) -> assertThat(status).as(path).isEqualTo(400));
		AbuseIntegrationTests.RawClient raw = new AbuseIntegrationTests.RawClient("127.0.0.1", this.port);
		Map<String, Integer> me = new TreeMap<>();
		Map<String, Integer> expected = Map.of("Bearer \u00ff\u00fe", 401, "Bearer a\u0001b", 400, "Bearer \u0000", 400,
				"Bearer " + "\u00e9".repeat(100), 401);
		expected.keySet()
			.forEach((authorization) -> me.put(authorization,
					raw.get("/user/me", "Authorization", authorization).status()));
		// Bytes above 0x7F are an invalid token; control characters are refused by
		// Tomcat before any servlet.
		assertThat(me).isEqualTo(expected);
	}

	private static String outcome(ApiClient.Response response) {
		if (response.status() < 400) {
			return Integer.toString(response.status());
		}
		UserApiIntegrationTests.assertProblem(response);
		return response.status() + " " + response.json().path("errors").path(0).path("field").asString("(none)");
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/** A registration with one field's JSON value replaced, the other fields valid. */
	private static String body(String field, String json) {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("first_name", "\"" + ApiClient.uniqueName() + "\"");
		fields.put("second_name", "\"" + ApiClient.uniqueName() + "\"");
		fields.put("birthdate", "\"1990-01-01\"");
		fields.put("biography", "\"Tests\"");
		fields.put("city", "\"Moscow\"");
		fields.put("password", "\"secret-password\"");
		fields.put(field, json);
		StringBuilder body = new StringBuilder();
		fields.forEach((name, value) -> body.append((body.length() > 0) ? "," : "{")
			.append('"')
			.append(name)
			.append("\":")
			.append(value));
		return body.append('}').toString();
	}

}
