package dev.highload.profiles.user;

import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.routing.ReadRouter;
import dev.highload.profiles.routing.WalPosition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The application's DataSource routes in Spring's sense: whatever JDBC code runs inside a
 * routed read (a Spring Data repository, a {@code JdbcClient}, a read-only transaction)
 * reaches the node the router chose, and outside one, the primary. Each node is told by
 * the address and port it answers on.
 */
@IntegrationTest
class RoutedReadIntegrationTests {

	private static final String SERVING_NODE = "SELECT inet_server_addr()::text || ':' || inet_server_port()";

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	ReadRouter router;

	@Autowired
	ServingNodeRepository repository;

	@Autowired
	DataSource dataSource;

	@Autowired
	PlatformTransactionManager transactionManager;

	Map<String, String> nodeByAddress;

	@BeforeEach
	void nodes() throws SQLException {
		this.nodeByAddress = new HashMap<>();
		for (String node : List.of("primary", "replica1", "replica2")) {
			this.nodeByAddress.put(this.cluster.queryValue(node, "postgres", SERVING_NODE), node);
		}
		assertThat(this.nodeByAddress).as("one address per node").hasSize(3);
	}

	@Test
	void aRepositoryReadInsideARoutedReadReachesTheReplicaChosenForIt() throws Exception {
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(30));
		Set<String> served = new HashSet<>();
		for (int i = 0; i < 40; i++) {
			Positioned<String> read = this.router.read(WalPosition.NONE, this.repository::servingNode);
			String node = this.nodeByAddress.get(read.value());
			assertThat(node).startsWith("replica");
			assertThat(read.standby()).isTrue();
			served.add(node);
		}
		assertThat(served).as("both replicas chosen").containsExactlyInAnyOrder("replica1", "replica2");
		try {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_pause()");
			new ApiClient(this.port).register("Routed", "Repository", "secret-password");
			WalPosition written = this.router.afterWrite();
			for (int i = 0; i < 20; i++) {
				// Only replica2 has replayed the registration: the router chooses it, and
				// the repository's statement runs there.
				Positioned<String> read = this.router.read(written, this.repository::servingNode);
				assertThat(this.nodeByAddress.get(read.value())).isEqualTo("replica2");
				assertThat(read.seen().covers(written)).as("the position after the read").isTrue();
			}
		}
		finally {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_resume()");
		}
	}

	@Test
	void aReadOnlyTransactionBegunInsideARoutedReadRunsOnTheReadsNode() {
		TransactionTemplate readOnly = new TransactionTemplate(this.transactionManager);
		readOnly.setReadOnly(true);
		JdbcClient jdbc = JdbcClient.create(this.dataSource);
		for (int i = 0; i < 10; i++) {
			Positioned<List<String>> read = this.router.read(WalPosition.NONE, () -> readOnly.execute((status) -> List
				.of(this.repository.servingNode(), jdbc.sql(SERVING_NODE).query(String.class).single())));
			assertThat(read.value().get(0)).as("the repository and JdbcClient share the transaction's node")
				.isEqualTo(read.value().get(1));
			assertThat(this.nodeByAddress.get(read.value().get(0))).startsWith("replica");
		}
	}

	@Test
	void outsideARoutedReadTheApplicationsDataSourceIsThePrimary() {
		assertThat(this.nodeByAddress.get(this.repository.servingNode())).isEqualTo("primary");
		assertThat(this.nodeByAddress
			.get(JdbcClient.create(this.dataSource).sql(SERVING_NODE).query(String.class).single()))
			.isEqualTo("primary");
	}

	@Test
	void aRoutedReadInsideATransactionIsRefused() {
		TransactionTemplate transaction = new TransactionTemplate(this.transactionManager);
		assertThatIllegalStateException().isThrownBy(() -> transaction
			.executeWithoutResult((status) -> this.router.read(WalPosition.NONE, this.repository::servingNode)));
	}

}
