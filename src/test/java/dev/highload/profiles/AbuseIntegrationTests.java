package dev.highload.profiles;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.net.ssl.SSLSocketFactory;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.highload.profiles.auth.ServiceTokens;
import dev.highload.profiles.auth.ThrottleProperties;
import dev.highload.profiles.auth.TokenService;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile input end to end: login brute force per account (growing delays) and per client
 * address, tokens an attacker could forge, and the malformed requests fuzzing found. The
 * throttled requests come from loopback addresses of their own (127.0.0.x), one per test,
 * so they neither trip nor depend on the limits of the other tests' 127.0.0.1.
 */
@IntegrationTest
class AbuseIntegrationTests {

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	MeterRegistry meterRegistry;

	@Autowired
	TokenService tokens;

	@Autowired
	ThrottleProperties throttle;

	int perAccount;

	int perAddress;

	Duration window;

	ApiClient api;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
		this.perAccount = this.throttle.loginFailuresPerAccountAndAddress();
		this.perAddress = this.throttle.loginFailuresPerAddress();
		this.window = this.throttle.loginWindow();
		assertThat(this.perAccount).as("the test profile's limits").isBetween(2, 20);
		assertThat(this.perAddress).isBetween(this.perAccount + 1, 50);
		assertThat(this.throttle.loginFailuresPerAccount()).as("the account's ceiling")
			.isBetween(this.perAccount + 1, 2 * this.perAccount + 2);
		assertThat(this.throttle.accountDelay()).as("what the test waits").isEqualTo(Duration.ofSeconds(1));
		assertThat(this.throttle.maxAccountDelay()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void pastItsFreeFailuresAnAccountWaitsADoublingDelayWithoutHashingAndIsNotLockedOut() throws Exception {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		RawClient client = new RawClient("127.0.0.11", this.port);
		for (int i = 0; i < this.perAccount; i++) {
			assertThat(client.login(id, "wrong-password").status()).as("failure %d", i + 1).isEqualTo(401);
		}
		double hashes = completedHashes();
		ApiClient.Response refused = client.login(id, "wrong-password");
		assertThat(refused.status()).isEqualTo(429);
		UserApiIntegrationTests.assertProblem(refused);
		assertThat(retryAfter(refused)).isEqualTo(1);
		// The right password waits too (a delay a correct guess could skip would confirm
		// the guess), and nothing is hashed.
		assertThat(client.login(id, "secret-password").status()).isEqualTo(429);
		assertThat(completedHashes()).isEqualTo(hashes);
		// Another account from the same client is not affected.
		UUID other = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		assertThat(client.login(other, "secret-password").status()).isEqualTo(200);
		// Past the delay an attempt goes through, and the next waits twice as long.
		Thread.sleep(retryAfter(refused) * 1000);
		assertThat(client.login(id, "wrong-password").status()).isEqualTo(401);
		ApiClient.Response longer = client.login(id, "wrong-password");
		assertThat(longer.status()).isEqualTo(429);
		assertThat(retryAfter(longer)).isEqualTo(2);
		// The owner, who waits as told, gets in: the failures were no lockout.
		Thread.sleep(retryAfter(longer) * 1000);
		assertThat(client.login(id, "secret-password").status()).isEqualTo(200);
	}

	/**
	 * Issue 59: a registration sent again with its Idempotency-Key is answered by whether
	 * its password matches the user's (200 or 422), a way to guess a password. Each check
	 * counts as a login of that client to that user: past the free failures the retries
	 * are 429, the right password's too, and a login from the client waits as well.
	 */
	@Test
	void aRegistrationRetriedWithOtherPasswordsIsThrottledAsFailedLogins() {
		RawClient client = new RawClient("127.0.0.92", this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		ApiClient.Response first = client.post("/user/register",
				ApiClient.registration("Ivan", secondName, "secret-password"), "Idempotency-Key", key);
		assertThat(first.status()).as(first.body()).isEqualTo(200);
		UUID id = UUID.fromString(first.json().get("user_id").asString());
		for (int i = 0; i < this.perAccount; i++) {
			ApiClient.Response guess = client.post("/user/register",
					ApiClient.registration("Ivan", secondName, "guessing-" + i), "Idempotency-Key", key);
			assertThat(guess.status()).as("guess %d: %s", i + 1, guess.body()).isEqualTo(422);
		}
		ApiClient.Response refused = client.post("/user/register",
				ApiClient.registration("Ivan", secondName, "guessing-x"), "Idempotency-Key", key);
		assertThat(refused.status()).as(refused.body()).isEqualTo(429);
		assertThat(client
			.post("/user/register", ApiClient.registration("Ivan", secondName, "secret-password"), "Idempotency-Key",
					key)
			.status()).as("the right password is no way past the delay").isEqualTo(429);
		assertThat(client.login(id, "secret-password").status()).as("nor a login").isEqualTo(429);
	}

	/**
	 * Issue 35: the delays are the failing client's, so someone who fails on an id from
	 * one address does not keep its owner, on another, out; past the account's ceiling,
	 * failures from many addresses make every client wait.
	 */
	@Test
	void oneClientsFailuresDelayThatClientAloneUntilTheAccountsCeiling() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		RawClient attacker = new RawClient("127.0.0.31", this.port);
		for (int i = 0; i < this.perAccount; i++) {
			assertThat(attacker.login(id, "wrong-password").status()).as("failure %d", i + 1).isEqualTo(401);
		}
		assertThat(attacker.login(id, "wrong-password").status()).isEqualTo(429);
		assertThat(new RawClient("127.0.0.32", this.port).login(id, "secret-password").status())
			.as("the owner, on another address")
			.isEqualTo(200);
		// The owner's login cleared the id's failures; now failures from two more
		// addresses pass the ceiling, and a fourth address waits too.
		int ceiling = this.throttle.loginFailuresPerAccount();
		int failed = 0;
		for (String address : List.of("127.0.0.33", "127.0.0.34", "127.0.0.35")) {
			RawClient client = new RawClient(address, this.port);
			for (int i = 0; i < this.perAccount && failed < ceiling; i++, failed++) {
				assertThat(client.login(id, "wrong-password").status()).as("%s, failure %d", address, i + 1)
					.isEqualTo(401);
			}
		}
		ApiClient.Response waits = new RawClient("127.0.0.36", this.port).login(id, "secret-password");
		assertThat(waits.status()).as("past the ceiling").isEqualTo(429);
		assertThat(retryAfter(waits)).isEqualTo(1);
	}

	/**
	 * Issue 49: past the account's ceiling every client waits, so attackers who fail on
	 * an id from several addresses, knocking at every opening, would keep its owner
	 * racing them. A client that has logged in to the account before holds a device
	 * cookie, and with it gets in at once, from any address.
	 */
	@Test
	void theOwnersDeviceGetsInAtOnceWhileAttackersFromManyAddressesFailWithoutPause() throws Exception {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		ApiClient.Response first = new RawClient("127.0.0.51", this.port).login(id, "secret-password");
		assertThat(first.status()).isEqualTo(200);
		String device = deviceCookie(first);
		// A value that is no cookie of this service (a '%' that is no escape) is ignored.
		assertThat(
				new RawClient("127.0.0.58", this.port).login(id, "wrong-password", "Cookie", "device=%)-1w").status())
			.isEqualTo(401);
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService attackers = Executors.newFixedThreadPool(4);
		List<Future<Map<Integer, Integer>>> attacks = new ArrayList<>();
		try {
			for (String address : List.of("127.0.0.52", "127.0.0.53", "127.0.0.54", "127.0.0.55")) {
				RawClient attacker = new RawClient(address, this.port);
				attacks.add(attackers.submit(() -> {
					Map<Integer, Integer> answers = new TreeMap<>();
					while (!stop.get()) {
						answers.merge(attacker.login(id, "wrong-password").status(), 1, Integer::sum);
					}
					return answers;
				}));
			}
			// Until the account is past its ceiling: a new client's first attempt waits.
			RawClient probe = new RawClient("127.0.0.56", this.port);
			long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
			int probed;
			while ((probed = probe.login(id, "wrong-password").status()) != 429 && System.nanoTime() < deadline) {
				Thread.sleep(100);
			}
			assertThat(probed).as("a client without the cookie, past the ceiling").isEqualTo(429);
			for (String address : List.of("127.0.0.51", "127.0.0.57")) {
				long start = System.nanoTime();
				ApiClient.Response owner = new RawClient(address, this.port).login(id, "secret-password", "Cookie",
						"device=" + device);
				assertThat(owner.status()).as("the owner's device on %s", address).isEqualTo(200);
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
				device = deviceCookie(owner);
			}
		}
		finally {
			stop.set(true);
			attackers.shutdown();
		}
		Map<Integer, Integer> answers = new TreeMap<>();
		for (Future<Map<Integer, Integer>> attack : attacks) {
			attack.get(30, TimeUnit.SECONDS).forEach((status, count) -> answers.merge(status, count, Integer::sum));
		}
		assertThat(answers).as("the attackers' answers").containsKeys(401, 429).doesNotContainKey(200);
	}

	static String deviceCookie(ApiClient.Response response) {
		String cookie = response.headers()
			.allValues("Set-Cookie")
			.stream()
			.filter((value) -> value.startsWith("device="))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no device cookie in " + response.headers().map()));
		assertThat(cookie).contains("Path=/login", "HttpOnly", "SameSite=Strict", "Max-Age=2592000");
		return cookie.substring("device=".length(), cookie.indexOf(';'));
	}

	/**
	 * Issue 35: HAProxy counts logins by the path as written; Tomcat would have answered
	 * these as logins, uncounted. They are 400, and nothing is hashed.
	 */
	@Test
	void aLoginPathWrittenAnotherWayIs400AndTriesNoPassword() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		RawClient client = new RawClient("127.0.0.37", this.port);
		String body = ApiClient.toJson(Map.of("id", id.toString(), "password", "wrong-password"));
		double hashes = completedHashes();
		for (String path : List.of("/login;x=1", "/%6Cogin", "//login", "/user/../login", "/./login")) {
			ApiClient.Response response = client.post(path, body);
			assertThat(response.status()).as(path).isEqualTo(400);
			UserApiIntegrationTests.assertProblem(response);
		}
		assertThat(completedHashes()).isEqualTo(hashes);
		assertThat(client.post("/login", body).status()).isEqualTo(401);
	}

	@Test
	void anUnknownIdIsThrottledExactlyLikeAWrongPassword() {
		UUID known = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		UUID unknown = UUID.randomUUID();
		RawClient one = new RawClient("127.0.0.12", this.port);
		RawClient two = new RawClient("127.0.0.13", this.port);
		List<ApiClient.Response> wrongPassword = new ArrayList<>();
		List<ApiClient.Response> unknownId = new ArrayList<>();
		for (int i = 0; i <= this.perAccount; i++) {
			wrongPassword.add(one.login(known, "wrong-password"));
			unknownId.add(two.login(unknown, "wrong-password"));
		}
		for (int i = 0; i <= this.perAccount; i++) {
			ApiClient.Response a = wrongPassword.get(i);
			ApiClient.Response b = unknownId.get(i);
			assertThat(a.status()).as("attempt %d", i + 1)
				.isEqualTo(b.status())
				.isEqualTo((i < this.perAccount) ? 401 : 429);
			assertThat(withoutRequestId(a)).as("attempt %d", i + 1).isEqualTo(withoutRequestId(b));
			assertThat(a.headers().firstValue("WWW-Authenticate"))
				.isEqualTo(b.headers().firstValue("WWW-Authenticate"));
			assertThat(a.headers().firstValue("Retry-After").isPresent())
				.isEqualTo(b.headers().firstValue("Retry-After").isPresent());
		}
	}

	@Test
	void failedLoginsFromOneAddressEndIn429WhateverTheIdsAndHeaders() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		RawClient attacker = new RawClient("127.0.0.14", this.port);
		for (int i = 0; i < this.perAddress; i++) {
			assertThat(attacker.login(UUID.randomUUID(), "guess").status()).as("failure %d", i + 1).isEqualTo(401);
		}
		ApiClient.Response blocked = attacker.login(UUID.randomUUID(), "guess");
		assertThat(blocked.status()).isEqualTo(429);
		assertThat(retryAfter(blocked)).isBetween(1L, this.window.toSeconds());
		// A header the client writes does not make it another client.
		assertThat(attacker.login(UUID.randomUUID(), "guess", "X-Forwarded-For", "203.0.113.9").status())
			.isEqualTo(429);
		assertThat(attacker.login(id, "secret-password").status()).isEqualTo(429);
		// Other clients, and the account itself from elsewhere, are not affected.
		assertThat(new RawClient("127.0.0.15", this.port).login(UUID.randomUUID(), "guess").status()).isEqualTo(401);
		assertThat(new RawClient("127.0.0.15", this.port).login(id, "secret-password").status()).isEqualTo(200);
	}

	@Test
	void aSuccessfulLoginClearsTheAccountsFailures() {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		RawClient client = new RawClient("127.0.0.16", this.port);
		for (int round = 0; round < 2; round++) {
			for (int i = 0; i < this.perAccount - 1; i++) {
				assertThat(client.login(id, "wrong-password").status()).isEqualTo(401);
			}
			assertThat(client.login(id, "secret-password").status()).isEqualTo(200);
		}
	}

	@Test
	void forgedTokensGetTheSame401Problem() throws Exception {
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		String valid = ServiceTokens.sign(this.tokens, claims(id, Instant.now().plusSeconds(300)));
		assertThat(this.api.get("/user/me", "Authorization", "Bearer " + valid).status()).isEqualTo(200);

		String[] parts = valid.split("\\.");
		byte[] signature = Base64.getUrlDecoder().decode(parts[2]);
		signature[signature.length / 2] ^= 0x10;
		String tamperedSignature = parts[0] + "." + parts[1] + "." + base64Url(signature);
		String algNone = base64Url("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
				+ parts[1] + ".";
		String otherKeyToken = ServiceTokens.signWithAnotherKey(this.tokens,
				claims(id, Instant.now().plusSeconds(300)));
		String expired = ServiceTokens.sign(this.tokens, claims(id, Instant.now().minusSeconds(1)));

		Map<String, String> forged = Map.of("tampered signature", tamperedSignature, "alg none", algNone, "another key",
				otherKeyToken, "expired", expired);
		JsonNode first = null;
		for (Map.Entry<String, String> token : forged.entrySet()) {
			ApiClient.Response response = this.api.get("/user/me", "Authorization", "Bearer " + token.getValue());
			assertThat(response.status()).as(token.getKey()).isEqualTo(401);
			UserApiIntegrationTests.assertProblem(response);
			assertThat(response.headers().firstValue("WWW-Authenticate")).as(token.getKey())
				.contains("Bearer error=\"invalid_token\"");
			JsonNode body = withoutRequestId(response);
			if (first == null) {
				first = body;
			}
			assertThat(body).as(token.getKey()).isEqualTo(first);
		}
	}

	@Test
	void malformedRequestsFoundByFuzzingAre4xxNot500() {
		// Parameters without names: Tomcat refuses to parse the query string.
		ApiClient.Response noNames = this.api.get("/user/search?=%C2%A9&=a");
		assertThat(noNames.status()).isEqualTo(400);
		UserApiIntegrationTests.assertProblem(noNames);
		// Tomcat refuses an over-long request line before any servlet: still a problem.
		ApiClient.Response tooLong = this.api.get("/user/search?first_name=" + "a".repeat(20_000) + "&last_name=b");
		assertThat(tooLong.status()).isEqualTo(400);
		assertThat(tooLong.contentType()).startsWith("application/problem+json");
		assertThat(tooLong.json().get("status").asInt()).isEqualTo(400);
		assertThat(tooLong.json().get("request_id").asString()).isNotBlank();
		assertThat(tooLong.body()).doesNotContain("<html", "Tomcat");
		// A GET declaring a multipart body that is not one: nothing parses it.
		UUID id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		assertThat(this.api.get("/user/" + id, "Content-Type", "multipart/form-data").status()).isEqualTo(200);
		// JSON scalars of the wrong type are not coerced into strings and dates.
		for (Map.Entry<String, Object> wrongType : Map
			.<String, Object>of("city", false, "biography", 42, "first_name", 1.5, "birthdate", 12000, "password", true)
			.entrySet()) {
			ApiClient.Response response = this.api.post("/user/register",
					ApiClient.toJson(UserApiIntegrationTests.change(wrongType.getKey(), wrongType.getValue())));
			assertThat(response.status()).as(wrongType.getKey()).isEqualTo(400);
			assertThat(response.json().get("detail").asString()).as(wrongType.getKey())
				.isEqualTo("Invalid value for '" + wrongType.getKey() + "'");
		}
		// Ids only in canonical form, empty paging parameters rejected.
		assertThat(this.api.get("/user/1-1-1-1-1").status()).isEqualTo(400);
		assertThat(this.api.get("/user/search?first_name=A&last_name=B&after=1-1-1-1-1").status()).isEqualTo(400);
		assertThat(this.api.get("/user/search?first_name=A&last_name=B&limit=").status()).isEqualTo(400);
	}

	@Test
	void theOpenApiDocumentListsTheProblemsEachEndpointAnswers() {
		JsonNode document = new ApiClient(this.managementPort).get("/actuator/openapi").json();
		JsonNode paths = document.get("paths");
		Map<String, List<String>> expected = Map.of("/user/register",
				List.of("200", "400", "409", "413", "415", "422", "429", "503"), "/login",
				List.of("200", "400", "401", "413", "415", "429", "503"), "/user/{id}",
				List.of("200", "400", "404", "503"), "/user/search", List.of("200", "400", "503"), "/user/me",
				List.of("200", "400", "401", "404", "503"));
		expected.forEach((path, statuses) -> {
			JsonNode operation = paths.get(path).propertyStream().findFirst().orElseThrow().getValue();
			assertThat(operation.get("responses").propertyNames()).as(path)
				.containsExactlyInAnyOrderElementsOf(statuses);
			// Each answers a consistency token; all but the registration take one.
			assertThat(operation.get("responses").get("200").get("headers").propertyNames()).as(path)
				.contains("Consistency-Token");
			List<String> parameters = new ArrayList<>();
			if (operation.has("parameters")) {
				operation.get("parameters").forEach((parameter) -> parameters.add(parameter.get("name").asString()));
			}
			if (path.equals("/user/register")) {
				assertThat(parameters).as(path).doesNotContain("Consistency-Token");
			}
			else {
				assertThat(parameters).as(path).contains("Consistency-Token");
			}
			assertThat(operation.get("responses").get("200").get("content").propertyNames()).as(path)
				.containsExactly("application/json");
		});
		assertThat(paths.propertyNames()).doesNotContain("/error");
		JsonNode responses = document.get("components").get("responses");
		assertThat(responses.get("TooManyRequests").get("content").propertyNames())
			.containsExactly("application/problem+json");
		assertThat(responses.get("TooManyRequests").get("headers").get("Retry-After").get("required").asBoolean())
			.isTrue();
		assertThat(responses.get("Conflict").get("headers").get("Retry-After").get("required").asBoolean()).isTrue();
		assertThat(paths.get("/user/me").get("get").get("security").get(0).propertyNames()).containsExactly("bearer");
		assertThat(document.get("components").get("securitySchemes").get("bearer").get("scheme").asString())
			.isEqualTo("bearer");
		assertThat(paths.get("/user/search").get("get").get("responses").get("200").get("headers").propertyNames())
			.containsExactlyInAnyOrder("Link", "Consistency-Token");
	}

	private static long retryAfter(ApiClient.Response response) {
		return Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow());
	}

	private double completedHashes() {
		return this.meterRegistry.get("profiles.password.hash").tag("operation", "verify").timer().count();
	}

	private static JsonNode withoutRequestId(ApiClient.Response response) {
		ObjectNode node = (ObjectNode) response.json();
		node.remove("request_id");
		return node;
	}

	private static JWTClaimsSet claims(UUID subject, Instant expires) {
		return new JWTClaimsSet.Builder().subject(subject.toString())
			.issuer("user-profiles")
			.issueTime(Date.from(expires.minusSeconds(3600)))
			.expirationTime(Date.from(expires))
			.build();
	}

	private static String base64Url(byte[] bytes) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	/**
	 * HTTP/1.1 over a socket bound to a chosen loopback address: the JDK's HttpClient
	 * cannot pick its local address before Java 19, and the throttle keys on exactly
	 * that.
	 */
	static final class RawClient {

		private final String localAddress;

		private final int port;

		private final SSLSocketFactory tls;

		RawClient(String localAddress, int port) {
			this(localAddress, port, null);
		}

		/**
		 * @param tls HTTPS with this factory's trust, or {@code null} for plain HTTP
		 */
		RawClient(String localAddress, int port, SSLSocketFactory tls) {
			this.localAddress = localAddress;
			this.port = port;
			this.tls = tls;
		}

		ApiClient.Response login(UUID id, String password, String... headers) {
			return post("/login", ApiClient.toJson(Map.of("id", id.toString(), "password", password)), headers);
		}

		ApiClient.Response post(String path, String json, String... headers) {
			byte[] body = json.getBytes(StandardCharsets.UTF_8);
			StringBuilder request = new StringBuilder("POST " + path + " HTTP/1.1\r\n").append("Host: 127.0.0.1\r\n")
				.append("Content-Type: application/json\r\n")
				.append("Content-Length: ")
				.append(body.length)
				.append("\r\n");
			return send(request, body, headers);
		}

		/**
		 * A GET whose header values are sent byte for byte: each char of a value is one
		 * byte (ISO-8859-1), so values can carry bytes no HTTP client library sends.
		 */
		ApiClient.Response get(String path, String... headers) {
			return send(new StringBuilder("GET " + path + " HTTP/1.1\r\n").append("Host: 127.0.0.1\r\n"), new byte[0],
					headers);
		}

		private ApiClient.Response send(StringBuilder request, byte[] body, String... headers) {
			request.append("Connection: close\r\n");
			for (int i = 0; i < headers.length; i += 2) {
				request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
			}
			request.append("\r\n");
			try (Socket socket = connect()) {
				socket.setSoTimeout(30_000);
				OutputStream out = socket.getOutputStream();
				out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
				out.write(body);
				out.flush();
				return parse(socket.getInputStream().readAllBytes());
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private Socket connect() throws IOException {
			if (this.tls != null) {
				return this.tls.createSocket(InetAddress.getByName("127.0.0.1"), this.port,
						InetAddress.getByName(this.localAddress), 0);
			}
			Socket socket = new Socket();
			socket.bind(new InetSocketAddress(this.localAddress, 0));
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 5000);
			return socket;
		}

		private static ApiClient.Response parse(byte[] raw) throws IOException {
			String text = new String(raw, StandardCharsets.ISO_8859_1);
			int end = text.indexOf("\r\n\r\n");
			String[] lines = text.substring(0, end).split("\r\n");
			int status = Integer.parseInt(lines[0].split(" ")[1]);
			Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
			for (int i = 1; i < lines.length; i++) {
				int colon = lines[i].indexOf(':');
				headers.computeIfAbsent(lines[i].substring(0, colon).trim(), (k) -> new ArrayList<>())
					.add(lines[i].substring(colon + 1).trim());
			}
			byte[] body = Arrays.copyOfRange(raw, end + 4, raw.length);
			if (headers.getOrDefault("Transfer-Encoding", List.of()).contains("chunked")) {
				body = dechunk(new ByteArrayInputStream(body));
			}
			return new ApiClient.Response(status, HttpHeaders.of(headers, (name, value) -> true),
					new String(body, StandardCharsets.UTF_8));
		}

		private static byte[] dechunk(InputStream in) throws IOException {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			while (true) {
				StringBuilder size = new StringBuilder();
				int c;
				while ((c = in.read()) != '\n') {
					if (c == -1) {
						return out.toByteArray();
					}
					if (c != '\r') {
						size.append((char) c);
					}
				}
				int length = Integer.parseInt(size.toString().split(";")[0].trim(), 16);
				if (length == 0) {
					return out.toByteArray();
				}
				out.write(in.readNBytes(length));
				in.readNBytes(2);
			}
		}

	}

}
