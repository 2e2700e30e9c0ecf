package dev.highload.profiles.cluster;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster's own life cycle, on a cluster of its own (other ports, other directory):
 * data survives a restart, and nodes left running by a run that died are taken over
 * instead of blocking the next start.
 */
class EmbeddedClusterIntegrationTests {

	static final ClusterProperties properties = OwnCluster.properties("lifecycle-cluster", 26432);

	@BeforeAll
	@AfterAll
	static void clean() throws Exception {
		OwnCluster.deleteNodes(properties);
	}

	@Test
	void dataSurvivesARestartAndLeftoversOfACrashedRunAreTakenOver() throws Exception {
		EmbeddedCluster first = new EmbeddedCluster(properties);
		first.start();
		Map<String, Long> firstPids = first.pids();
		assertThat(firstPids.values())
			.allMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
		try (Connection c = first.connectAsSuperuser("primary", "profiles"); Statement s = c.createStatement()) {
			s.execute("CREATE TABLE survivor (note text)");
			s.execute("INSERT INTO survivor VALUES ('written before the crash')");
		}
		// The first run "crashes": its nodes keep running, nobody stops them.
		EmbeddedCluster second = new EmbeddedCluster(properties);
		try {
			second.start();
			assertThat(firstPids.values())
				.noneMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
			assertThat(second.pids().values()).doesNotContainAnyElementsOf(firstPids.values());
			for (String node : second.ports().keySet()) {
				try (Connection c = second.connectAsSuperuser(node, "profiles")) {
					assertThat(query(c, "SELECT note FROM survivor")).as(node).isEqualTo("written before the crash");
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
		assertThat(second.pids().values())
			.noneMatch((pid) -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
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
