package dev.highload.profiles.cluster;

import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The cluster's own life cycle, on a cluster of its own (other ports, other directory):
 * one process owns the nodes, another is refused or joins them, and the nodes of an owner
 * killed with SIGKILL are taken over by the next start, with their data.
 */
class EmbeddedClusterIntegrationTests {

	static final ClusterProperties properties = OwnCluster.properties("lifecycle-cluster", 26432);

	@BeforeAll
	@AfterAll
	static void clean() throws Exception {
		OwnCluster.deleteNodes(properties);
	}

	@Test
	void anotherProcessIsRefusedOrJoinsAndTheNodesOfAKilledOwnerAreTakenOver() throws Exception {
		Process owner = startOwnerProcess();
		try {
			Map<String, Long> postmasters = postmasters();
			assertThat(postmasters).hasSize(3).allSatisfy((node, pid) -> assertThat(alive(pid)).as(node).isTrue());

			// A second start is refused with the owner's pid, and touches no node.
			assertThatThrownBy(() -> EmbeddedCluster.acquire(properties)).isInstanceOf(ClusterOwnedException.class)
				.hasMessageContaining("already run by process " + owner.pid())
				.hasMessageContaining("--app.seed.users");
			assertThat(postmasters()).isEqualTo(postmasters);

			// Joining uses the owner's nodes; closing leaves them running.
			try (EmbeddedCluster joined = EmbeddedCluster.acquireOrJoin(properties)) {
				assertThat(joined.joinedOwner()).hasValueSatisfying(
						(description) -> assertThat(description).startsWith("process " + owner.pid() + " "));
				try (Connection c = joined.connectAsSuperuser("primary", "profiles");
						Statement s = c.createStatement()) {
					s.execute("CREATE TABLE survivor (note text)");
					s.execute("INSERT INTO survivor VALUES ('written by a joined process')");
				}
			}
			assertThat(postmasters()).isEqualTo(postmasters);
			assertThat(postmasters.values()).allMatch(EmbeddedClusterIntegrationTests::alive);

			// kill -9 of the owner: the kernel drops its lock,
			// and its nodes run on, orphaned.
			owner.destroyForcibly().waitFor();
			assertThat(postmasters.values()).allMatch(EmbeddedClusterIntegrationTests::alive);

			EmbeddedCluster second = new EmbeddedCluster(properties);
			try {
				second.start();
				assertThat(postmasters.values()).noneMatch(EmbeddedClusterIntegrationTests::alive);
				assertThat(second.pids().values()).doesNotContainAnyElementsOf(postmasters.values());
				for (String node : second.ports().keySet()) {
					try (Connection c = second.connectAsSuperuser(node, "profiles")) {
						assertThat(query(c, "SELECT note FROM survivor")).as(node)
							.isEqualTo("written by a joined process");
					}
				}
				try (Connection c = second.connectAsSuperuser("primary", "postgres")) {
					assertThat(query(c,
							"SELECT string_agg(application_name || ':' || sync_state, ',' "
									+ "ORDER BY application_name) FROM pg_stat_replication"))
						.isEqualTo("replica1:quorum,replica2:quorum");
				}
			}
			finally {
				second.close();
			}
			assertThat(second.pids().values()).noneMatch(EmbeddedClusterIntegrationTests::alive);
			assertThat(ClusterOwnership.otherOwner(properties.baseDir())).isEmpty();
		}
		finally {
			owner.destroyForcibly().waitFor();
		}
	}

	/**
	 * Starts {@link ClusterOwnerProcess} in a JVM of its own on this test's cluster and
	 * waits until its nodes run.
	 */
	private static Process startOwnerProcess() throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Path log = properties.baseDir().resolve("owner-process.log");
		Files.createDirectories(properties.baseDir());
		Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
				ClusterOwnerProcess.class.getName(), properties.baseDir().getFileName().toString(),
				Integer.toString(properties.primaryPort()))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			await().atMost(Duration.ofSeconds(120))
				.pollInterval(Duration.ofMillis(200))
				.failFast("the owner process exited", () -> !process.isAlive())
				.until(() -> Files.readString(log).contains(ClusterOwnerProcess.READY + process.pid()));
		}
		catch (ConditionTimeoutException | TerminalFailureException ex) {
			process.destroyForcibly();
			throw new AssertionError("The owner process did not start its cluster:\n" + Files.readString(log), ex);
		}
		return process;
	}

	/** Node name to the pid in its postmaster.pid. */
	private static Map<String, Long> postmasters() throws Exception {
		Map<String, Long> pids = new TreeMap<>();
		for (String node : new String[] { "primary", "replica1", "replica2" }) {
			Path lockFile = properties.baseDir().resolve("cluster").resolve(node).resolve("postmaster.pid");
			pids.put(node, Long.parseLong(Files.readAllLines(lockFile).get(0).trim()));
		}
		return pids;
	}

	private static boolean alive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	@Test
	void acquiringTheSameDirectoryTwiceSharesOneCluster() {
		EmbeddedCluster one = EmbeddedCluster.acquire(properties);
		EmbeddedCluster two = EmbeddedCluster.acquire(properties);
		try {
			assertThat(two).isSameAs(one);
			one.close();
			assertThat(two.pids().values())
				.allMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
		}
		finally {
			two.close();
		}
		assertThat(two.pids().values())
			.noneMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
	}

	private static String query(Connection c, String sql) throws SQLException {
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
