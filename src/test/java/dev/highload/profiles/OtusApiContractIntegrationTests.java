package dev.highload.profiles;

import java.sql.Connection;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.highload.profiles.database.DatabaseProperties;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The OTUS Highload Architect API v1.2.0 as a client written to it sees this service: its
 * four profile operations, each through its success and error answers, every body checked
 * against the contract's response schemas, restated below as {@link Shape}s (the contract
 * is {@code homework/openapi.json} in github.com/OtusTeam/highload, last changed in
 * commit 1b8d6a9; it is not copied here). An answer the contract does not list must be
 * one of the deviations docs/api.md lists ("OTUS API v1.2.0 compatibility"), named in
 * {@link #DEVIATIONS}.
 */
@IntegrationTest
class OtusApiContractIntegrationTests {

	/** Schema {@code UserId}: a string, no format. */
	static final Shape USER_ID = Shape.STRING;

	/**
	 * Schema {@code User}: no property required, each typed; null is none of the types.
	 */
	static final Shape USER = Shape.object(Set.of(), "id", USER_ID, "first_name", Shape.STRING, "second_name",
			Shape.STRING, "birthdate", Shape.DATE, "biography", Shape.STRING, "city", Shape.STRING);

	/** The 200 of {@code POST /user/register}. */
	static final Shape REGISTERED = Shape.object(Set.of(), "user_id", Shape.STRING);

	/** The 200 of {@code POST /login}. */
	static final Shape LOGGED_IN = Shape.object(Set.of(), "token", Shape.STRING);

	/** The 200 of {@code GET /user/search}. */
	static final Shape USERS = Shape.array(USER);

	/**
	 * Response {@code 5xx}, the 500 and 503 of every operation: message required, and a
	 * {@code Retry-After} header, when there is one, an integer.
	 */
	static final Shape SERVER_ERROR = Shape.object(Set.of("message"), "message", Shape.STRING, "request_id",
			Shape.STRING, "code", Shape.INTEGER);

	/** The statuses the contract lists for each operation. */
	static final Map<String, Set<Integer>> STATUSES = Map.of("POST /login", Set.of(200, 400, 404, 500, 503),
			"POST /user/register", Set.of(200, 400, 500, 503), "GET /user/get/{id}", Set.of(200, 400, 404, 500, 503),
			"GET /user/search", Set.of(200, 400, 500, 503));

	/**
	 * The statuses this service answers beyond them, on purpose (docs/api.md): a failed
	 * login is 401, whether the id is unknown or the password wrong.
	 */
	static final Map<String, Set<Integer>> DEVIATIONS = Map.of("POST /login", Set.of(401));

	/** The bodies the contract gives a schema, by status; the others have no content. */
	static final Map<String, Map<Integer, Shape>> BODIES = Map.of("POST /login",
			Map.of(200, LOGGED_IN, 500, SERVER_ERROR, 503, SERVER_ERROR), "POST /user/register",
			Map.of(200, REGISTERED, 500, SERVER_ERROR, 503, SERVER_ERROR), "GET /user/get/{id}",
			Map.of(200, USER, 500, SERVER_ERROR, 503, SERVER_ERROR), "GET /user/search",
			Map.of(200, USERS, 500, SERVER_ERROR, 503, SERVER_ERROR));

	private static final String PASSWORD = "contract password";

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	DatabaseProperties database;

	ApiClient api;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
	}

	@Test
	void registerGetAndSearchAnswerTheContractsShapesWithAndWithoutOptionalFields() throws Exception {
		String first = ApiClient.uniqueName();
		String last = ApiClient.uniqueName();
		// The contract's request body, every field given.
		ApiClient.Response full = answer("POST /user/register",
				this.api.post("/user/register", ApiClient.toJson(Map.of("first_name", first, "second_name", last,
						"birthdate", "1990-05-17", "biography", "Походы", "city", "Москва", "password", PASSWORD))),
				200);
		// Biography and city left out, as the contract allows: the profile has no value
		// for them, and a client generated from the contract reads a string or nothing.
		ApiClient.Response bare = answer("POST /user/register", this.api.post("/user/register", ApiClient
			.toJson(Map.of("first_name", first, "second_name", last, "birthdate", "1991-06-18", "password", PASSWORD))),
				200);
		String fullId = full.json().get("user_id").asString();
		String bareId = bare.json().get("user_id").asString();

		JsonNode withCity = answer("GET /user/get/{id}", this.api.get("/user/get/" + fullId), 200).json();
		assertThat(withCity.get("city").asString()).isEqualTo("Москва");
		assertThat(withCity.get("birthdate").asString()).isEqualTo("1990-05-17");
		JsonNode withoutCity = answer("GET /user/get/{id}", this.api.get("/user/get/" + bareId), 200).json();
		assertThat(withoutCity.propertyNames()).containsExactly("id", "first_name", "second_name", "birthdate");

		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
		JsonNode found = answer("GET /user/search",
				this.api.search(Map.of("first_name", first.substring(0, 4), "last_name", last)), 200)
			.json();
		assertThat(found.valueStream().map((user) -> user.get("id").asString())).containsExactly(fullId, bareId);
	}

	@Test
	void loginAnswersTheContractsShapesAndItsOneDeviation() {
		String id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), PASSWORD).toString();
		answer("POST /login", login(id, PASSWORD), 200);
		// The contract's 404 for an unknown user would tell which ids exist: 401 for
		// both.
		answer("POST /login", login(id, "not the password"), 401);
		answer("POST /login", login(UUID.randomUUID().toString(), PASSWORD), 401);
		answer("POST /login", this.api.post("/login", "{\"id\":42,\"password\":\"x\"}"), 400);
		answer("POST /login", this.api.post("/login", "{}"), 400);
	}

	@Test
	void invalidInputAndUnknownIdsAreTheContractsStatuses() {
		answer("POST /user/register", this.api.post("/user/register", "{\"first_name\":\"Ivan\"}"), 400);
		answer("POST /user/register", this.api.post("/user/register",
				ApiClient.registration("Ivan", "Petrov", PASSWORD).replace("1990-05-17", "17.05.1990")), 400);
		answer("GET /user/get/{id}", this.api.get("/user/get/not-an-id"), 400);
		answer("GET /user/get/{id}", this.api.get("/user/get/" + UUID.randomUUID()), 404);
		answer("GET /user/search", this.api.search(Map.of("first_name", "Iv")), 400);
	}

	/**
	 * Every operation's 503, made by the statement timeout: a lock on the users table,
	 * replayed on the replicas, holds every read and write of it until the server cancels
	 * the statement (the read pools' 1.5 s, the write pool's 10 s).
	 */
	@Test
	void everyOperationsServerErrorIsTheContracts5xxBody() throws Exception {
		String id = this.api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), PASSWORD).toString();
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
		Map<String, Supplier<ApiClient.Response>> operations = new LinkedHashMap<>();
		operations.put("POST /login", () -> login(id, PASSWORD));
		operations.put("POST /user/register", () -> this.api.post("/user/register",
				ApiClient.registration(ApiClient.uniqueName(), ApiClient.uniqueName(), PASSWORD)));
		operations.put("GET /user/get/{id}", () -> this.api.get("/user/get/" + id));
		operations.put("GET /user/search", () -> this.api.search(Map.of("first_name", "A", "last_name", "B")));

		Map<String, ApiClient.Response> answers = new LinkedHashMap<>();
		// Closing the session ends its transaction and lock, whatever fails meanwhile.
		try (Connection lock = this.cluster.lockUsersEverywhere(this.database.database())) {
			// All at once (the common pool has one thread on two cores): the wait is the
			// write pool's timeout, not the sum.
			ExecutorService clients = Executors.newFixedThreadPool(operations.size());
			try {
				Map<String, CompletableFuture<ApiClient.Response>> pending = new LinkedHashMap<>();
				operations.forEach((operation, request) -> pending.put(operation,
						CompletableFuture.supplyAsync(request, clients)));
				for (Map.Entry<String, CompletableFuture<ApiClient.Response>> answer : pending.entrySet()) {
					answers.put(answer.getKey(), answer.getValue().get(30, TimeUnit.SECONDS));
				}
			}
			finally {
				clients.shutdownNow();
			}
			lock.rollback();
		}
		answers.forEach((operation, response) -> answer(operation, response, 503));

		await("reads served again").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.api.get("/user/get/" + id).status() == 200);
	}

	/**
	 * Checks an answer as a client written to the contract reads it: the status expected,
	 * and one the contract lists (or a documented deviation); a body the contract gives a
	 * schema is JSON of that shape.
	 */
	private static ApiClient.Response answer(String operation, ApiClient.Response response, int expected) {
		assertThat(response.status()).as("%s: %s", operation, response.body()).isEqualTo(expected);
		boolean listed = STATUSES.get(operation).contains(expected)
				|| DEVIATIONS.getOrDefault(operation, Set.of()).contains(expected);
		assertThat(listed).as("%s %d: a status the contract lists or a documented deviation", operation, expected)
			.isTrue();
		Shape shape = BODIES.get(operation).get(expected);
		if (shape == null) {
			return response;
		}
		// JSON: the contract's media type is application/json; a problem is its
		// application/problem+json (a documented deviation), JSON all the same.
		assertThat(response.contentType()).as(operation).matches("application/(problem\\+)?json(;.*)?");
		assertThat(shape.violations("$", response.json())).as("%s %d: %s", operation, expected, response.body())
			.isEmpty();
		if (shape == SERVER_ERROR) {
			response.headers()
				.firstValue("Retry-After")
				.ifPresent((seconds) -> assertThat(seconds).as("Retry-After, an integer").matches("\\d+"));
		}
		return response;
	}

	private ApiClient.Response login(String id, String password) {
		return this.api.post("/login", ApiClient.toJson(Map.of("id", id, "password", password)));
	}

	/**
	 * The part of OpenAPI 3.0's schema objects the contract's responses use: a string
	 * (with format date or none), an integer, an array of one shape, an object of typed
	 * properties, some required. Additional properties are allowed, as the contract does
	 * not forbid them; {@code null} is none of these types (no schema there is nullable).
	 */
	interface Shape {

		Shape STRING = (path, node) -> node.isString() ? List.of() : List.of(path + " is not a string: " + node);

		Shape INTEGER = (path, node) -> node.isIntegralNumber() ? List.of()
				: List.of(path + " is not an integer: " + node);

		Shape DATE = (path, node) -> {
			if (!node.isString()) {
				return List.of(path + " is not a string: " + node);
			}
			try {
				LocalDate.parse(node.asString());
				return List.of();
			}
			catch (DateTimeParseException ex) {
				return List.of(path + " is not a full-date (RFC 3339): " + node);
			}
		};

		/**
		 * @param path where the node is, for the message
		 * @param node the JSON
		 * @return what does not match, empty when all does
		 */
		List<String> violations(String path, JsonNode node);

		static Shape array(Shape items) {
			return (path, node) -> {
				if (!node.isArray()) {
					return List.of(path + " is not an array: " + node);
				}
				List<String> violations = new ArrayList<>();
				for (int i = 0; i < node.size(); i++) {
					violations.addAll(items.violations(path + "[" + i + "]", node.get(i)));
				}
				return violations;
			};
		}

		/**
		 * @param required the names that must be present
		 * @param properties name, shape, name, shape...
		 */
		static Shape object(Set<String> required, Object... properties) {
			Map<String, Shape> shapes = new LinkedHashMap<>();
			for (int i = 0; i < properties.length; i += 2) {
				shapes.put((String) properties[i], (Shape) properties[i + 1]);
			}
			return (path, node) -> {
				if (!node.isObject()) {
					return List.of(path + " is not an object: " + node);
				}
				List<String> violations = new ArrayList<>();
				required.stream()
					.filter((name) -> !node.has(name))
					.forEach((name) -> violations.add(path + "." + name + " is required"));
				shapes.forEach((name, shape) -> {
					if (node.has(name)) {
						violations.addAll(shape.violations(path + "." + name, node.get(name)));
					}
				});
				return violations;
			};
		}

	}

}
