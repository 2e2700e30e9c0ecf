package dev.highload.profiles;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.ContainerState;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docker-compose.yml as a user runs it, through Testcontainers' compose support (the
 * local {@code docker compose} CLI, Compose v2): builds the service's image from the
 * Dockerfile, starts everything with the committed .env, waits for every healthcheck,
 * then checks what the deployment promises. Skipped, with Testcontainers' message, where
 * no Docker engine runs; the machine this project is developed on has none, so this test
 * has not run there.
 * <p>
 * The service's host port is left to Docker ({@code APP_PORT=0}) and the network gets a
 * subnet of its own ({@code -Dit.compose.subnet}, default 172.28.201.0/24), so the test
 * can run beside a {@code docker compose up} of the same file. The nodes are reached
 * through Testcontainers' ambassador container, which joins the compose network and so
 * passes pg_hba.conf.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ComposeDeploymentIntegrationTests {

	private static final int APP_PORT = 8080;

	private static final int POSTGRES_PORT = 5432;

	private static final List<String> NODES = List.of("primary", "replica1", "replica2");

	private static final List<String> REPLICAS = List.of("replica1", "replica2");

	/** The point read, the credential read and the search all read from users. */
	private static final String SELECTS = "%from users%";

	private static ComposeContainer compose;

	private static String superuserPassword;

	private static ApiClient api;

	@BeforeAll
	static void up() throws IOException {
		superuserPassword = setting("POSTGRES_PASSWORD");
		compose = new ComposeContainer(new File("docker-compose.yml")).withBuild(true)
			.withRemoveImages(ComposeContainer.RemoveImages.LOCAL)
			.withEnv("APP_PORT", "0")
			.withEnv("MANAGEMENT_PORT", "0")
			.withEnv("NETWORK_SUBNET", System.getProperty("it.compose.subnet", "172.28.201.0/24"))
			// A wait strategy's own limit is 60 s, whatever the compose timeout says: too
			// short
			// for the service's first start on a busy 2-core machine.
			.withExposedService("app", APP_PORT, Wait.forHealthcheck().withStartupTimeout(Duration.ofMinutes(5)))
			.withStartupTimeout(Duration.ofMinutes(15));
		for (String node : NODES) {
			compose.withExposedService(node, POSTGRES_PORT,
					Wait.forHealthcheck().withStartupTimeout(Duration.ofMinutes(5)));
		}
		compose.start();
		api = new ApiClient(compose.getServiceHost("app", APP_PORT), compose.getServicePort("app", APP_PORT));
	}

	@AfterAll
	static void down() {
		if (compose != null) {
			compose.stop();
		}
	}

	@Test
	@Order(1)
	void registerGetAndSearch() {
		UUID id = api.register("Compose", "Deployment", "secret-password");
		ApiClient.Response profile = api.get("/user/" + id);
		assertThat(profile.status()).isEqualTo(200);
		assertThat(profile.json().get("first_name").asString()).isEqualTo("Compose");
		ApiClient.Response found = api.search(Map.of("first_name", "Comp", "last_name", "Deploy"));
		assertThat(found.status()).isEqualTo(200);
		assertThat(found.body()).contains(id.toString());
	}

	@Test
	@Order(2)
	void readsAreAnsweredByTheReplicas() throws Exception {
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			ids.add(api.register("Replica", "Reader", "secret-password"));
		}
		awaitReplicasCaughtUp();
		Map<String, Long> before = calls(SELECTS);
		for (int i = 0; i < 30; i++) {
			assertThat(api.get("/user/" + ids.get(i % ids.size())).status()).isEqualTo(200);
		}
		for (int i = 0; i < 10; i++) {
			assertThat(api.search(Map.of("first_name", "Repl", "last_name", "Read")).status()).isEqualTo(200);
		}
		Map<String, Long> after = calls(SELECTS);
		assertThat(after.get("primary") - before.get("primary")).as("selects on the primary").isZero();
		long onReplicas = REPLICAS.stream().mapToLong((node) -> after.get(node) - before.get(node)).sum();
		assertThat(onReplicas).as("selects on the replicas").isEqualTo(40);
	}

	@Test
	@Order(3)
	void bothReplicasStreamAsQuorumStandbys() throws SQLException {
		List<String> rows = new ArrayList<>();
		try (Connection c = connect("primary", "postgres");
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT application_name, state, sync_state FROM pg_stat_replication "
						+ "ORDER BY application_name")) {
			while (rs.next()) {
				rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
			}
		}
		assertThat(rows).containsExactly("replica1 streaming quorum", "replica2 streaming quorum");
		assertThat(query("primary", "SELECT current_setting('synchronous_standby_names')"))
			.isEqualTo("ANY 1 (replica1, replica2)");
		assertThat(query("primary", "SELECT current_setting('synchronous_commit')")).isEqualTo("remote_apply");
	}

	@Test
	@Order(4)
	void readsAndWritesGoOnWhenAReplicaStops() throws Exception {
		UUID id = api.register("Before", "Stop", "secret-password");
		ContainerState replica2 = compose.getContainerByServiceName("replica2")
			.orElseThrow(() -> new AssertionError("no replica2 container"));
		DockerClientFactory.instance().client().stopContainerCmd(replica2.getContainerId()).exec();

		// Connections to the stopped replica fail and are evicted; then every read must
		// succeed on the other replica, or on the primary as a last resort.
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		int consecutive = 0;
		List<Integer> failures = new ArrayList<>();
		while (consecutive < 50 && System.nanoTime() < deadline) {
			int status = api.get("/user/" + id).status();
			if (status == 200) {
				consecutive++;
			}
			else {
				failures.add(status);
				consecutive = 0;
				Thread.sleep(200);
			}
		}
		assertThat(consecutive).as("consecutive reads answered after replica2 stopped; failures before: " + failures)
			.isEqualTo(50);
		// ANY 1: replica1 alone acknowledges the commit.
		assertThat(api.post("/user/register", ApiClient.registration("After", "Stop", "secret-password")).status())
			.isEqualTo(200);
	}

	private static Map<String, Long> calls(String pattern) throws SQLException {
		Map<String, Long> calls = new HashMap<>();
		for (String node : NODES) {
			try (Connection c = connect(node, "profiles");
					PreparedStatement s = c.prepareStatement(
							"SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ILIKE ?")) {
				s.setString(1, pattern);
				try (ResultSet rs = s.executeQuery()) {
					rs.next();
					calls.put(node, rs.getLong(1));
				}
			}
		}
		return calls;
	}

	private static void awaitReplicasCaughtUp() throws Exception {
		String lsn = query("primary", "SELECT pg_current_wal_lsn()::text");
		for (String replica : REPLICAS) {
			await(replica + " catching up").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> query(replica, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn"), "t"::equals);
		}
	}

	private static String query(String node, String sql) throws SQLException {
		try (Connection c = connect(node, "postgres");
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

	private static Connection connect(String node, String database) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("password", superuserPassword);
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "60");
		String address = compose.getServiceHost(node, POSTGRES_PORT) + ":"
				+ compose.getServicePort(node, POSTGRES_PORT);
		return DriverManager.getConnection("jdbc:postgresql://" + address + "/" + database, properties);
	}

	/** A variable as docker compose resolves it: the environment first, then .env. */
	private static String setting(String name) throws IOException {
		String value = System.getenv(name);
		if (value != null) {
			return value;
		}
		for (String line : Files.readAllLines(Path.of(".env"))) {
			if (line.startsWith(name + "=")) {
				return line.substring(name.length() + 1).trim();
			}
		}
		throw new IllegalStateException(name + " is set neither in the environment nor in .env");
	}

}
