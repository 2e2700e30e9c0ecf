package dev.highload.profiles.cluster;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The failover command on a cluster of its own (it kills a primary): after a kill -9 of
 * the primary, the most advanced standby is promoted and takes synchronous commits at
 * once, the other streams from it, and the next start re-clones the old primary as a
 * standby instead of starting a second primary. Shares ports 29432-29434 with
 * LostWriteIntegrationTests; test classes run one after the other.
 */
class FailoverIntegrationTests {

	static final ClusterProperties properties = OwnCluster.properties("failover-cluster", 29432);

	@BeforeAll
	@AfterAll
	static void clean() throws Exception {
		OwnCluster.deleteNodes(properties);
	}

	@Test
	void thePromotedStandbyTakesWritesAndTheOldPrimaryRejoinsAsAStandbyAtTheNextStart() throws Exception {
		EmbeddedCluster first = new EmbeddedCluster(properties);
		first.start();
		String promoted;
		try {
			execute(first, "primary", "CREATE TABLE marks (note text)", "INSERT INTO marks VALUES ('before')");
			crash(first.pids().get("primary"));

			String report = FailoverCommand.failover(properties);

			assertThat(report).contains("STAYS DOWN");
			List<String> primaries = primaries(first);
			assertThat(primaries).hasSize(1).doesNotContain("primary");
			promoted = primaries.get(0);
			String other = promoted.equals("replica1") ? "replica2" : "replica1";
			assertThat(query(first, promoted, "SHOW synchronous_standby_names"))
				.isEqualTo("ANY 1 (primary, " + other + ")");
			// A synchronous commit on the new primary returns:
			// the other standby confirms it.
			execute(first, promoted, "SET statement_timeout = '20s'", "INSERT INTO marks VALUES ('after')");
			assertThat(query(first, promoted,
					"SELECT string_agg(application_name || ':' || sync_state, ',') FROM pg_stat_replication"))
				.isEqualTo(other + ":quorum");
			assertThat(Files.exists(properties.baseDir().resolve("cluster/primary/" + PostgresNode.FENCE))).isTrue();
		}
		finally {
			first.close();
		}

		EmbeddedCluster second = new EmbeddedCluster(properties);
		try {
			second.start();
			assertThat(primaries(second)).containsExactly(promoted);
			assertThat(query(second, "primary", "SELECT pg_is_in_recovery()::text")).isEqualTo("true");
			assertThat(query(second, promoted, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"))
				.isEqualTo("2");
			execute(second, promoted, "SET statement_timeout = '20s'", "INSERT INTO marks VALUES ('restarted')");
			awaitRows(second, "primary", 3);
			assertThat(Files.exists(properties.baseDir().resolve("cluster/primary/" + PostgresNode.FENCE))).isFalse();
		}
		finally {
			second.close();
		}
	}

	private static void crash(long postmaster) throws Exception {
		List<String> command = new ArrayList<>(List.of("kill", "-KILL", Long.toString(postmaster)));
		ProcessHandle.of(postmaster).orElseThrow().descendants().forEach((p) -> command.add(Long.toString(p.pid())));
		// A backend that exits between the listing and the kill makes kill exit 1; the
		// others are killed all the same.
		new ProcessBuilder(command).inheritIO().start().waitFor();
		ProcessHandle.of(postmaster).ifPresent((p) -> p.onExit().join());
	}

	private static List<String> primaries(EmbeddedCluster cluster) {
		List<String> primaries = new ArrayList<>();
		for (String node : cluster.ports().keySet()) {
			try {
				if (query(cluster, node, "SELECT pg_is_in_recovery()::text").equals("false")) {
					primaries.add(node);
				}
			}
			catch (SQLException ex) {
				// down
			}
		}
		return primaries;
	}

	private static void awaitRows(EmbeddedCluster cluster, String node, int rows) throws Exception {
		await(rows + " rows on " + node).atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> query(cluster, node, "SELECT count(*) FROM marks"), Integer.toString(rows)::equals);
	}

	private static void execute(EmbeddedCluster cluster, String node, String... statements) throws SQLException {
		try (Connection c = cluster.connectAsSuperuser(node, "profiles"); Statement s = c.createStatement()) {
			for (String sql : statements) {
				s.execute(sql);
			}
		}
	}

	private static String query(EmbeddedCluster cluster, String node, String sql) throws SQLException {
		try (Connection c = cluster.connectAsSuperuser(node, "profiles");
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
