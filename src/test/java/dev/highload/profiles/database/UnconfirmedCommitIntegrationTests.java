package dev.highload.profiles.database;

import java.util.Objects;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A commit whose wait for the synchronous standbys is cancelled has happened on the
 * primary, and PostgreSQL answers it with only a warning. The service must not answer 200
 * for it, and a registration's retry with its Idempotency-Key must not either until a
 * standby has applied it.
 */
@IntegrationTest
class UnconfirmedCommitIntegrationTests {

	private static final String[] REPLICAS = { "replica1", "replica2" };

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	MeterRegistry meterRegistry;

	/**
	 * Also: the 503 names the Idempotency-Key the server made for the registration (the
	 * client sent none), and a retry with it, once a replica applies again, answers the
	 * user that was committed, without a second one.
	 */
	@Test
	void aRegistrationWhoseSynchronousWaitIsCancelledIs503NotSuccess() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		double before = unconfirmed();
		ApiClient.Response response;
		pauseReplay();
		try {
			CompletableFuture<ApiClient.Response> registration = CompletableFuture
				.supplyAsync(() -> api.post("/user/register", body));
			cancel(awaitSyncRepWaiter());
			response = registration.get(30, TimeUnit.SECONDS);

			assertThat(response.status()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(response.json().get("title").asString()).isEqualTo("Outcome unknown");
			assertThat(unconfirmed() - before).isEqualTo(1);
			// Not a failure either: the row is there on the primary, committed locally.
			assertThat(usersNamed(secondName)).hasSize(1);
		}
		finally {
			resumeReplay();
		}
		String key = response.json().get("idempotency_key").asString();
		assertThat(UUID.fromString(key).toString()).as("a key the server made").isEqualTo(key);
		assertThat(response.json().get("detail").asString())
			.contains("Retry with Idempotency-Key: \"" + key + "\" and the same body");

		ApiClient.Response retry = api.post("/user/register", body, "Idempotency-Key", "\"" + key + "\"");
		assertThat(retry.status()).as(retry.body()).isEqualTo(200);
		assertThat(usersNamed(secondName)).containsExactly(retry.json().get("user_id").asString());
		// Once a replica applies again, writes succeed as before.
		UUID id = api.register("Ivan", secondName + "b", "secret-password");
		assertThat(api.get("/user/" + id).status()).isEqualTo(200);
	}

	/**
	 * A retry with the key of a registration that is committed on the primary alone must
	 * not answer 200 either: its own commit waits for a standby, past the first one's,
	 * and is answered "Outcome unknown" while none confirms it. And while the first
	 * attempt still waits for its commit, the key is in flight: 409.
	 */
	@Test
	void aRetryOfAnUnconfirmedRegistrationIsConfirmedBeforeItsAnswer() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String secondName = ApiClient.uniqueName();
		String body = ApiClient.registration("Ivan", secondName, "secret-password");
		String key = "unconfirmed " + UUID.randomUUID();
		String header = "\"" + key + "\"";
		pauseReplay();
		try {
			CompletableFuture<ApiClient.Response> first = CompletableFuture
				.supplyAsync(() -> api.post("/user/register", body, "Idempotency-Key", header));
			int waiting = awaitSyncRepWaiter();
			ApiClient.Response meanwhile = api.post("/user/register", body, "Idempotency-Key", header);
			assertThat(meanwhile.status()).as(meanwhile.body()).isEqualTo(409);
			cancel(waiting);
			ApiClient.Response unknown = first.get(30, TimeUnit.SECONDS);
			assertThat(unknown.status()).isEqualTo(503);
			assertThat(unknown.json().get("title").asString()).isEqualTo("Outcome unknown");
			assertThat(unknown.json().get("idempotency_key").asString()).isEqualTo(key);
			assertThat(usersNamed(secondName)).hasSize(1);

			CompletableFuture<ApiClient.Response> early = CompletableFuture
				.supplyAsync(() -> api.post("/user/register", body, "Idempotency-Key", header));
			cancel(awaitSyncRepWaiter());
			ApiClient.Response stillUnknown = early.get(30, TimeUnit.SECONDS);
			assertThat(stillUnknown.status()).as(stillUnknown.body()).isEqualTo(503);
			assertThat(stillUnknown.json().get("title").asString()).isEqualTo("Outcome unknown");
			assertThat(stillUnknown.json().get("idempotency_key").asString()).isEqualTo(key);
		}
		finally {
			resumeReplay();
		}
		ApiClient.Response retry = api.post("/user/register", body, "Idempotency-Key", header);
		assertThat(retry.status()).as(retry.body()).isEqualTo(200);
		assertThat(usersNamed(secondName)).containsExactly(retry.json().get("user_id").asString());
		assertThat(this.cluster.queryValue("primary", "profiles",
				"SELECT count(*) || ' ' || min(user_id::text) FROM registration_keys WHERE key = ?", key))
			.isEqualTo("1 " + retry.json().get("user_id").asString());
	}

	/**
	 * With replay paused on both replicas, no standby applies a commit: with remote_apply
	 * it waits until the wait is cancelled.
	 */
	private void pauseReplay() throws SQLException {
		for (String replica : REPLICAS) {
			this.cluster.execute(replica, "SELECT pg_wal_replay_pause()");
		}
	}

	private void resumeReplay() throws SQLException {
		for (String replica : REPLICAS) {
			this.cluster.execute(replica, "SELECT pg_wal_replay_resume()");
		}
	}

	private void cancel(int backend) throws SQLException {
		try (Connection c = this.cluster.connectAsSuperuser("primary", "postgres");
				PreparedStatement s = c.prepareStatement("SELECT pg_cancel_backend(?)")) {
			s.setInt(1, backend);
			s.execute();
		}
	}

	/** The ids of the users with this second name, on the primary. */
	private List<String> usersNamed(String secondName) throws SQLException {
		List<String> ids = new ArrayList<>();
		try (Connection c = this.cluster.connectAsSuperuser("primary", "profiles");
				PreparedStatement s = c.prepareStatement("SELECT id::text FROM users WHERE second_name = ?")) {
			s.setString(1, secondName);
			try (ResultSet rs = s.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getString(1));
				}
			}
		}
		return ids;
	}

	/** The pid of the service's backend waiting for synchronous replication. */
	private int awaitSyncRepWaiter() throws SQLException, InterruptedException {
		return await("a commit waiting for SyncRep").atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				try (Connection c = this.cluster.connectAsSuperuser("primary", "postgres");
						Statement s = c.createStatement();
						ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity "
								+ "WHERE wait_event = 'SyncRep' AND application_name = 'user-profiles'")) {
					return rs.next() ? rs.getInt(1) : null;
				}
			}, Objects::nonNull);
	}

	private double unconfirmed() {
		return this.meterRegistry.get("profiles.commits.unconfirmed").counter().count();
	}

}
