package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.cluster.EmbeddedCluster;
import dev.highload.profiles.cluster.ServerLogs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Bounded work: a statement past its pool's statement timeout is cancelled by the server
 * (57014), not cut off by the socket timeout and run again elsewhere; the client gets 503
 * once, and the pool keeps the connection.
 */
@IntegrationTest
class StatementTimeoutIntegrationTests {

	/**
	 * PostgreSQL's message for 57014 from statement_timeout (the nodes log in English).
	 */
	private static final String CANCELLED = "canceling statement due to statement timeout";

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	ObjectProvider<EmbeddedCluster> embedded;

	@Autowired
	NodePools nodePools;

	HikariDataSource readPool;

	@Autowired
	@Qualifier("writeDataSource")
	HikariDataSource writePool;

	@Autowired
	DatabaseProperties properties;

	ApiClient api;

	@BeforeEach
	void client() throws SQLException {
		this.api = new ApiClient(this.port);
		this.readPool = ReadPools.replicas(this.nodePools).get(0);
	}

	@Test
	void everyConnectionOfEachPoolCarriesItsPoolsStatementTimeout() throws SQLException {
		assertThat(this.properties.readPool().statementTimeout()).isEqualTo(Duration.ofMillis(1500));
		assertThat(setting(this.readPool, "statement_timeout")).isEqualTo("1500ms");
		assertThat(setting(this.writePool, "statement_timeout")).isEqualTo("10s");
	}

	@Test
	void theServerCancelsAStatementPastTheTimeoutAndThePoolKeepsTheConnection() throws SQLException {
		try (Connection connection = this.readPool.getConnection();
				Statement statement = connection.createStatement()) {
			long started = System.nanoTime();
			// Not 08006 after the 2 s socket timeout: the server's cancel, before it.
			assertThatExceptionOfType(SQLException.class).as("pg_sleep(5) on the read pool")
				.isThrownBy(() -> statement.execute("SELECT pg_sleep(5)"))
				.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("57014"));
			long millis = (System.nanoTime() - started) / 1_000_000;
			assertThat(millis).isLessThan(this.properties.readPool().socketTimeout().toMillis());
			// HikariCP swaps an evicted connection for a closed one at once: the next
			// statement on it would fail with "Connection is closed".
			try (ResultSet rs = statement.executeQuery("SELECT 1")) {
				assertThat(rs.next()).isTrue();
			}
			assertThat(connection.isClosed()).isFalse();
		}
	}

	@Test
	void aReadBlockedOnTheServerIsCancelledOnceAndAnswered503() throws Exception {
		EmbeddedCluster nodes = this.embedded.getIfAvailable();
		assumeTrue(nodes != null, "cancellations are counted in the embedded cluster's server logs");
		ServerLogs logs = new ServerLogs(nodes);
		UUID id = this.api.register("Slow", "Reader", "secret-password");
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
		assertThat(this.api.get("/user/" + id).status()).isEqualTo(200);

		ApiClient.Response response;
		long millis;
		Map<String, List<String>> cancelled;
		// Closing the session ends its transaction and lock, whatever fails meanwhile.
		try (Connection lock = this.cluster.lockUsersEverywhere(this.properties.database())) {

			Map<String, Long> mark = logs.mark();
			long started = System.nanoTime();
			response = this.api.get("/user/" + id);
			millis = (System.nanoTime() - started) / 1_000_000;
			cancelled = logs.since(mark, CANCELLED);
			lock.rollback();
		}

		assertThat(response.status()).as(response.body()).isEqualTo(503);
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.contentType()).startsWith("application/problem+json");
		assertThat(response.json().get("title").asString()).isEqualTo("Query timed out");
		// Exactly one execution: a retry on the other replica or on the primary (where
		// the same lock holds it) would be cancelled, and logged, a second time.
		assertThat(cancelled.values().stream().mapToLong(List::size).sum()).as("cancellations by node: %s", cancelled)
			.isEqualTo(1);
		assertThat(cancelled.get("primary")).isEmpty();

		// Ended by the statement timeout, before any socket timeout could break the
		// connection; a second attempt would take at least as long again.
		assertThat(millis).isGreaterThanOrEqualTo(this.properties.readPool().statementTimeout().toMillis())
			.isLessThan(this.properties.readPool().socketTimeout().toMillis());

		// The lock's end is replayed too: reads are served again.
		await("reads served again").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.api.get("/user/" + id).status() == 200);
	}

	private static String setting(HikariDataSource pool, String name) throws SQLException {
		try (Connection connection = pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SHOW " + name)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
