package dev.highload.profiles.routing;

import java.util.Objects;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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
 * for it.
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

	@Test
	void aRegistrationWhoseSynchronousWaitIsCancelledIs503NotSuccess() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String secondName = ApiClient.uniqueName();
		double before = unconfirmed();
		// With replay paused on both replicas, no standby applies the commit: with
		// remote_apply it waits until the wait is cancelled.
		for (String replica : REPLICAS) {
			this.cluster.execute(replica, "SELECT pg_wal_replay_pause()");
		}
		try {
			CompletableFuture<ApiClient.Response> registration = CompletableFuture.supplyAsync(
					() -> api.post("/user/register", ApiClient.registration("Ivan", secondName, "secret-password")));
			int waiting = awaitSyncRepWaiter();
			try (Connection c = this.cluster.connectAsSuperuser("primary", "postgres");
					PreparedStatement s = c.prepareStatement("SELECT pg_cancel_backend(?)")) {
				s.setInt(1, waiting);
				s.execute();
			}
			ApiClient.Response response = registration.get(30, TimeUnit.SECONDS);

			assertThat(response.status()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).isPresent();
			assertThat(response.json().get("title").asString()).isEqualTo("Outcome unknown");
			assertThat(unconfirmed() - before).isEqualTo(1);
			// Not a failure either: the row is there on the primary, committed locally.
			assertThat(this.cluster.queryValue("primary", "profiles",
					"SELECT count(*) FROM users WHERE second_name = ?", secondName))
				.isEqualTo("1");
		}
		finally {
			for (String replica : REPLICAS) {
				this.cluster.execute(replica, "SELECT pg_wal_replay_resume()");
			}
		}
		// Once a replica applies again, writes succeed as before.
		UUID id = api.register("Ivan", secondName + "b", "secret-password");
		assertThat(api.get("/user/" + id).status()).isEqualTo(200);
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
