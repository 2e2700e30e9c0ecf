package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.time.Duration;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which node served what, read from the nodes' own pg_stat_statements counters. If a read
 * went to the primary without a reason, its statements would be counted there and these
 * tests would fail.
 */
@IntegrationTest
class RoutingIntegrationTests {

	private static final List<String> REPLICAS = List.of("replica1", "replica2");

	/**
	 * The point read, the credential read and the search all read users as {@code u};
	 * inserts and the router's position probes do not match.
	 */
	private static final String SELECTS = "%users u%";

	private static final String INSERTS = "insert into users%";

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	MeterRegistry meterRegistry;

	ApiClient api;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
	}

	@Test
	void readsAreServedByReplicasOnly() throws Exception {
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			ids.add(this.api.register("Route", "Reader", "secret-password"));
		}
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
		Map<String, Long> before = calls(SELECTS);
		for (int i = 0; i < 50; i++) {
			assertThat(this.api.get("/user/" + ids.get(i % ids.size())).status()).isEqualTo(200);
		}
		for (int i = 0; i < 10; i++) {
			assertThat(this.api.search(Map.of("first_name", "Rou", "last_name", "Rea")).status()).isEqualTo(200);
		}
		Map<String, Long> after = calls(SELECTS);
		assertThat(after.get("primary") - before.get("primary")).as("selects on the primary").isZero();
		long onReplicas = REPLICAS.stream().mapToLong((node) -> after.get(node) - before.get(node)).sum();
		assertThat(onReplicas).as("selects on the replicas").isEqualTo(60);
	}

	@Test
	void writesAreServedByThePrimary() throws Exception {
		Map<String, Long> before = calls(INSERTS);
		for (int i = 0; i < 7; i++) {
			this.api.register("Route", "Writer", "secret-password");
		}
		Map<String, Long> after = calls(INSERTS);
		assertThat(after.get("primary") - before.get("primary")).isEqualTo(7);
		for (String replica : REPLICAS) {
			assertThat(after.get(replica) - before.get(replica)).isZero();
		}
	}

	@Test
	void aMissOnAReplicaThatHasNotAppliedARegistrationIsReadAgainOnOneThatHas() throws Exception {
		List<UUID> ids = new ArrayList<>();
		try {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_pause()");
			// ANY 1: replica2 alone acknowledges these commits; replica1 never sees them.
			for (int i = 0; i < 20; i++) {
				ids.add(this.api.register("Lagging", "Replica", "secret-password"));
			}
			Map<String, Long> before = calls(SELECTS);
			double recheckedBefore = rechecked();
			// Concurrent reads without a token, spread over both replicas.
			ExecutorService clients = Executors.newFixedThreadPool(16);
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < 160; i++) {
				UUID id = ids.get(i % ids.size());
				statuses.add(clients.submit(() -> this.api.get("/user/" + id).status()));
			}
			for (Future<Integer> status : statuses) {
				assertThat(status.get()).isEqualTo(200);
			}
			clients.shutdown();
			Map<String, Long> after = calls(SELECTS);
			long missedOnReplica1 = after.get("replica1") - before.get("replica1");
			assertThat(missedOnReplica1).as("reads that reached the paused replica").isPositive();
			assertThat(rechecked() - recheckedBefore).as("misses read again").isEqualTo(missedOnReplica1);
			// Read again on replica2, which has them; the primary only if replica2 had
			// not replayed the primary's position within the wait.
			assertThat(after.get("replica2") - before.get("replica2") + after.get("primary") - before.get("primary"))
				.isEqualTo(160);
			assertThat(after.get("primary") - before.get("primary")).as("reads on the primary")
				.isLessThanOrEqualTo(missedOnReplica1 / 10);
		}
		finally {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_resume()");
		}
	}

	@Test
	void bothReplicasStreamAsQuorumStandbys() throws SQLException {
		try (Connection c = this.cluster.connectAsSuperuser("primary", "postgres");
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT application_name, state, sync_state FROM pg_stat_replication "
						+ "ORDER BY application_name")) {
			List<String> rows = new ArrayList<>();
			while (rs.next()) {
				rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
			}
			assertThat(rows).containsExactly("replica1 streaming quorum", "replica2 streaming quorum");
		}
		assertThat(setting("primary", "synchronous_standby_names")).isEqualTo("ANY 1 (replica1, replica2)");
		assertThat(setting("primary", "synchronous_commit")).isEqualTo("remote_apply");
		assertThat(setting("primary", "fsync")).isEqualTo("on");
		for (String replica : REPLICAS) {
			assertThat(setting(replica, "transaction_read_only")).isEqualTo("on");
		}
	}

	private double rechecked() {
		return this.meterRegistry.get("profiles.reads.rechecked").counter().count();
	}

	private Map<String, Long> calls(String pattern) throws SQLException {
		Map<String, Long> calls = new HashMap<>();
		for (String node : List.of("primary", "replica1", "replica2")) {
			calls.put(node, this.cluster.statementCalls(node, pattern));
		}
		return calls;
	}

	private String setting(String node, String name) throws SQLException {
		return this.cluster.queryValue(node, "postgres", "SELECT current_setting(?)", name);
	}

}
