package dev.highload.profiles.user;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.database.DatabaseProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Registration with an Idempotency-Key on the real cluster: a retry answers the first
 * user, once; a reused key is refused; a key in flight is 409; expired keys are deleted
 * without blocking anyone and free their key. The retries after "Outcome unknown" are in
 * {@code routing.UnconfirmedCommitIntegrationTests}, beside the cancelled commit they
 * need.
 */
@IntegrationTest
class IdempotentRegistrationIntegrationTests {

	private static final String HEADER = "Idempotency-Key";

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	DatabaseProperties database;

	@Autowired
	MeterRegistry meterRegistry;

	@Autowired
	Registrations registrations;

	@Autowired
	RegistrationKeyCleanup cleanup;

	@Autowired
	RegistrationProperties properties;

	@Test
	void theSameKeyTwiceRegistersOneUserAndAnswersItTwice() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		double replayedBefore = replayed();

		ApiClient.Response first = api.post("/user/register", body, HEADER, "\"" + key + "\"");
		// Bare, as Stripe's clients send it: the same key.
		ApiClient.Response second = api.post("/user/register", body, HEADER, key);

		assertThat(first.status()).as(first.body()).isEqualTo(200);
		assertThat(second.status()).as(second.body()).isEqualTo(200);
		assertThat(second.body()).isEqualTo(first.body());
		String userId = first.json().get("user_id").asString();
		assertThat(usersNamed(secondName)).containsExactly(userId);
		assertThat(keyRow(key)).isEqualTo(userId + " replayed");
		assertThat(replayed() - replayedBefore).isEqualTo(1);
		// The user is the one registered: its password logs in.
		assertThat(api.post("/login", ApiClient.toJson(Map.of("id", userId, "password", "secret-password"))).status())
			.isEqualTo(200);
	}

	@Test
	void aRegistrationWithoutAKeyIsStoredWithOneOfTheServers() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String secondName = ApiClient.uniqueName();
		UUID id = api.register("Ivan", secondName, "secret-password");
		String key = this.cluster.queryValue("primary", this.database.database(),
				"SELECT key FROM registration_keys WHERE user_id = ?", id);
		assertThat(UUID.fromString(key).toString()).isEqualTo(key);
		assertThat(keyRow(key)).isEqualTo(id + " first");
		// Without a key, the same body again is another registration, as before.
		api.register("Ivan", secondName, "secret-password");
		assertThat(usersNamed(secondName)).hasSize(2);
	}

	@Test
	void theSameKeyWithAnotherBodyIs422AndChangesNothing() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		ApiClient.Response first = registered(api, ApiClient.registration("Ivan", secondName, "secret-password"), key);

		for (String other : List.of(ApiClient.registration("Pyotr", secondName, "secret-password"),
				ApiClient.toJson(Map.of("first_name", "Ivan", "second_name", secondName, "birthdate", "1990-05-17",
						"biography", "Integration tests", "city", "Казань", "password", "secret-password")),
				ApiClient.toJson(Map.of("first_name", "Ivan", "second_name", secondName, "birthdate", "1990-05-17",
						"city", "Москва", "password", "secret-password")))) {
			ApiClient.Response reused = api.post("/user/register", other, HEADER, key);
			assertThat(reused.status()).as(other).isEqualTo(422);
			assertThat(reused.contentType()).startsWith("application/problem+json");
			assertThat(reused.json().get("title").asString()).isEqualTo("Idempotency-Key reused");
			assertThat(reused.json().get("detail").asString())
				.startsWith("Idempotency-Key reused with a different request");
		}
		assertThat(usersNamed(secondName)).containsExactly(first.json().get("user_id").asString());
		assertThat(keyRow(key)).isEqualTo(first.json().get("user_id").asString() + " first");
	}

	@Test
	void theSameKeyAndBodyWithAnotherPasswordIs422() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		ApiClient.Response first = registered(api, ApiClient.registration("Ivan", secondName, "secret-password"), key);

		ApiClient.Response otherPassword = api.post("/user/register",
				ApiClient.registration("Ivan", secondName, "another-password"), HEADER, key);
		assertThat(otherPassword.status()).as(otherPassword.body()).isEqualTo(422);
		assertThat(usersNamed(secondName)).hasSize(1);
		// The refusal did not spend the key: the right password still gets the answer.
		ApiClient.Response retry = api.post("/user/register",
				ApiClient.registration("Ivan", secondName, "secret-password"), HEADER, key);
		assertThat(retry.status()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(first.body());
	}

	/**
	 * While a transaction holds the key's advisory lock (here the test's own, as a first
	 * request still in progress would), a request with the key is 409 and writes nothing;
	 * once the lock is gone, the same request registers.
	 */
	@Test
	void aKeyHeldByAnotherTransactionIs409WithRetryAfter() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = "in-flight " + UUID.randomUUID();
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		try (Connection holder = this.cluster.connectAsSuperuser("primary", this.database.database())) {
			holder.setAutoCommit(false);
			try (PreparedStatement lock = holder
				.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
				lock.setString(1, key);
				lock.execute();
			}
			ApiClient.Response held = api.post("/user/register", body, HEADER, "\"" + key + "\"");
			assertThat(held.status()).as(held.body()).isEqualTo(409);
			assertThat(held.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(held.json().get("detail").asString())
				.startsWith("A request with this Idempotency-Key is in progress");
			assertThat(usersNamed(secondName)).isEmpty();
			holder.rollback();
		}
		ApiClient.Response free = api.post("/user/register", body, HEADER, "\"" + key + "\"");
		assertThat(free.status()).as(free.body()).isEqualTo(200);
		assertThat(usersNamed(secondName)).containsExactly(free.json().get("user_id").asString());
	}

	/**
	 * A double click, eight times over: requests with one key at the same moment register
	 * one user; each answer is that user or 409, never a second user or a 500.
	 */
	@Test
	void concurrentRequestsWithOneKeyRegisterOneUser() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		List<String> answers = new ArrayList<>();
		ExecutorService clients = Executors.newFixedThreadPool(8);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<ApiClient.Response>> requests = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				requests.add(clients.submit(() -> {
					start.await();
					return api.post("/user/register", body, HEADER, key);
				}));
			}
			start.countDown();
			for (Future<ApiClient.Response> request : requests) {
				ApiClient.Response response = request.get(60, TimeUnit.SECONDS);
				answers.add((response.status() == 200) ? response.json().get("user_id").asString()
						: Integer.toString(response.status()));
			}
		}
		finally {
			clients.shutdownNow();
		}
		List<String> users = usersNamed(secondName);
		assertThat(users).hasSize(1);
		assertThat(answers).as("the user or 409").isSubsetOf(users.get(0), "409").contains(users.get(0));
		assertThat(keyCount(key)).isEqualTo(1);
	}

	@Test
	void anExpiredKeyIsDeletedByTheCleanupAndRegistersAnew() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		ApiClient.Response first = registered(api, ApiClient.registration("Ivan", secondName, "secret-password"), key);
		double deletedBefore = deleted();
		age(key);

		this.cleanup.deleteExpired();
		assertThat(keyCount(key)).isZero();
		assertThat(deleted() - deletedBefore).isPositive();

		// Free again: another body with it is a new registration, not a 422.
		assertRegisteredAnew(first, ApiClient.registration("Pyotr", secondName, "other-password"), secondName, key);
	}

	@Test
	void anExpiredKeyNotYetDeletedIsReplacedByTheNextRegistration() throws SQLException {
		ApiClient api = new ApiClient(this.port);
		String key = UUID.randomUUID().toString();
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		ApiClient.Response first = registered(api, body, key);
		age(key);

		assertRegisteredAnew(first, body, secondName, key);
	}

	/**
	 * Batches of two, with a row held by another transaction: the run deletes every other
	 * expired row, batch after batch, without waiting for the held one, and leaves live
	 * keys alone.
	 */
	@Test
	void theCleanupDeletesInBatchesAndSkipsWhatOthersHold() throws SQLException {
		this.cleanup.deleteExpired();
		String prefix = "cleanup " + UUID.randomUUID() + " ";
		List<String> expired = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			expired.add(prefix + i);
		}
		try (Connection c = this.cluster.connectAsSuperuser("primary", this.database.database());
				PreparedStatement insert = c.prepareStatement("INSERT INTO registration_keys "
						+ "(key, fingerprint, user_id, created_at) VALUES (?, sha256(convert_to(?, 'UTF8')), gen_random_uuid(), "
						+ "now() - ?::interval)")) {
			for (String key : expired) {
				insert.setString(1, key);
				insert.setString(2, key);
				insert.setString(3, this.properties.idempotencyKeyTtl().plusMinutes(1).toSeconds() + " seconds");
				insert.addBatch();
			}
			insert.setString(1, prefix + "live");
			insert.setString(2, "live");
			insert.setString(3, "0 seconds");
			insert.addBatch();
			insert.executeBatch();
		}
		RegistrationKeyCleanup smallBatches = new RegistrationKeyCleanup(this.registrations,
				new RegistrationProperties(this.properties.idempotencyKeyTtl(), Duration.ofHours(1), 2),
				new SimpleMeterRegistry());
		try (Connection holder = this.cluster.connectAsSuperuser("primary", this.database.database())) {
			holder.setAutoCommit(false);
			try (PreparedStatement hold = holder
				.prepareStatement("SELECT key FROM registration_keys WHERE key = ? FOR UPDATE")) {
				hold.setString(1, expired.get(2));
				hold.executeQuery().close();
			}
			long start = System.nanoTime();
			smallBatches.deleteExpired();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no wait for the held row")
				.isLessThan(Duration.ofSeconds(5));
			assertThat(keysStartingWith(prefix)).containsExactly(expired.get(2), prefix + "live");
			holder.rollback();
		}
		assertThat(smallBatches.deleteExpired()).isGreaterThanOrEqualTo(0);
		assertThat(keysStartingWith(prefix)).containsExactly(prefix + "live");
		smallBatches.destroy();
	}

	@Test
	void theOpenApiDocumentDescribesTheHeaderAndItsStatuses() {
		JsonNode register = new ApiClient(this.managementPort).get("/actuator/openapi")
			.json()
			.get("paths")
			.get("/user/register")
			.get("post");
		List<String> headers = new ArrayList<>();
		register.get("parameters").forEach((parameter) -> {
			if ("header".equals(parameter.get("in").asString())) {
				headers.add(parameter.get("name").asString() + " " + parameter.path("required").asBoolean(false));
			}
		});
		assertThat(headers).containsExactly("Idempotency-Key false");
		assertThat(register.get("responses").propertyNames()).contains("200", "400", "409", "422", "503");
		assertThat(register.get("description").asString()).contains("app.registration.idempotency-key-ttl", "24 hours");
	}

	private ApiClient.Response registered(ApiClient api, String body, String key) {
		ApiClient.Response response = api.post("/user/register", body, HEADER, key);
		assertThat(response.status()).as(response.body()).isEqualTo(200);
		return response;
	}

	/**
	 * Sends a registration with an expired key and checks that it made a second user,
	 * whom the key now stands for.
	 */
	private void assertRegisteredAnew(ApiClient.Response first, String body, String secondName, String key)
			throws SQLException {
		ApiClient.Response again = registered(new ApiClient(this.port), body, key);
		String newId = again.json().get("user_id").asString();
		assertThat(newId).isNotEqualTo(first.json().get("user_id").asString());
		assertThat(usersNamed(secondName)).hasSize(2);
		assertThat(keyRow(key)).isEqualTo(newId + " first");
	}

	/** Makes a key older than the time keys are kept. */
	private void age(String key) throws SQLException {
		try (Connection c = this.cluster.connectAsSuperuser("primary", this.database.database());
				PreparedStatement s = c.prepareStatement(
						"UPDATE registration_keys SET created_at = created_at - ?::interval WHERE key = ?")) {
			s.setString(1, this.properties.idempotencyKeyTtl().plusMinutes(1).toSeconds() + " seconds");
			s.setString(2, key);
			assertThat(s.executeUpdate()).isEqualTo(1);
		}
	}

	/** The ids of the users with this second name, on the primary. */
	private List<String> usersNamed(String secondName) throws SQLException {
		return column("SELECT id::text FROM users WHERE second_name = ? ORDER BY id", secondName);
	}

	private List<String> keysStartingWith(String prefix) throws SQLException {
		return column("SELECT key FROM registration_keys WHERE starts_with(key, ?) ORDER BY key", prefix);
	}

	/** The key's row: its user and whether a retry has been answered from it. */
	private String keyRow(String key) throws SQLException {
		return this.cluster.queryValue("primary", this.database.database(),
				"SELECT user_id::text || CASE WHEN replayed_at IS NULL THEN ' first' ELSE ' replayed' END "
						+ "FROM registration_keys WHERE key = ?",
				key);
	}

	private long keyCount(String key) throws SQLException {
		return Long.parseLong(this.cluster.queryValue("primary", this.database.database(),
				"SELECT count(*) FROM registration_keys WHERE key = ?", key));
	}

	private List<String> column(String sql, String parameter) throws SQLException {
		List<String> values = new ArrayList<>();
		try (Connection c = this.cluster.connectAsSuperuser("primary", this.database.database());
				PreparedStatement s = c.prepareStatement(sql)) {
			s.setString(1, parameter);
			try (ResultSet rs = s.executeQuery()) {
				while (rs.next()) {
					values.add(rs.getString(1));
				}
			}
		}
		return values;
	}

	private double replayed() {
		return this.meterRegistry.get("profiles.registrations.replayed").counter().count();
	}

	private double deleted() {
		return this.meterRegistry.get("profiles.registrations.keys.deleted").counter().count();
	}

}
