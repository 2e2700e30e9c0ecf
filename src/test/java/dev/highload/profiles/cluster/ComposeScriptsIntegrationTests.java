package dev.highload.profiles.cluster;

import java.util.Optional;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * The scripts that docker-compose.yml relies on (db/scripts), run against real PostgreSQL
 * server binaries on this machine, so that they cannot rot where no Docker runs.
 * <p>
 * The binaries are Debian's postgresql-15, which .ci/run installs: the compose cluster
 * runs 18, but the embedded cluster's 18 has no pg_basebackup, and pg_basebackup 15
 * cannot clone an 18 server, so this test uses 15 throughout. The primary is started by
 * its compose entrypoint, primary.sh, on an empty data directory: initdb, a server on a
 * private Unix socket that runs init-primary.sh, then the real start, as in the official
 * image and in the stand-in built from Debian's packages. Every process runs unprivileged
 * ({@link Privileges}) on ports 24432-24434 and is stopped by its pid.
 */
class ComposeScriptsIntegrationTests {

	private static final Path BIN = Path.of(System.getProperty("it.pg15.bin", "/usr/lib/postgresql/15/bin"));

	private static final Path BASE = Path.of("target/compose-scripts").toAbsolutePath();

	private static final Path SCRIPTS = Path.of("db/scripts").toAbsolutePath();

	/**
	 * Below Linux's ephemeral range (32768-60999 by default): a port in that range can be
	 * held by any outgoing connection of the same test JVM (pools, HTTP clients, sockets
	 * in TIME_WAIT), and a postmaster that cannot bind it exits at once.
	 */
	private static final int PRIMARY_PORT = 24432;

	private static final String SUPERUSER_PASSWORD = "test-superuser";

	/** Characters that need quoting in SQL and escaping in a .pgpass file. */
	private static final String REPLICATION_PASSWORD = "repl:pass\\'word";

	private static final String APP_PASSWORD = "app-password";

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final List<Process> processes = new ArrayList<>();

	private Path sockets;

	@BeforeEach
	void prepare() throws IOException {
		assumeTrue(Files.isExecutable(BIN.resolve("pg_basebackup")) && Files.isExecutable(BIN.resolve("postgres")),
				"PostgreSQL 15 server binaries not found in " + BIN
						+ ": install Debian's postgresql-15 (.ci/run does) or point -Dit.pg15.bin at a bin directory");
		FileTrees.delete(BASE);
		Files.createDirectories(BASE);
		// Short: a Unix socket path has at most 107 bytes.
		this.sockets = Files.createTempDirectory("compose-scripts-");
	}

	@AfterEach
	void stopEverything() throws Exception {
		for (Process process : this.processes) {
			stop(process);
		}
		if (this.sockets != null) {
			FileTrees.delete(this.sockets);
		}
	}

	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void replicasWaitForThePrimaryCloneItStreamAsQuorumAndRestartFromTheirData() throws Exception {
		Process replica1 = startReplica("replica1", PRIMARY_PORT + 1);
		awaitLog("replica1", "not ready for a base backup (attempt 3)");
		assertThat(replica1.isAlive()).as("replica1 keeps retrying while there is no primary").isTrue();

		startPrimary();
		startReplica("replica2", PRIMARY_PORT + 2);

		assertBothReplicasStreamAsQuorum();
		assertThat(query(PRIMARY_PORT,
				"SELECT current_setting('synchronous_standby_names') || ' '"
						+ "|| current_setting('synchronous_commit')"))
			.isEqualTo("ANY 1 (replica1, replica2) remote_apply");
		assertThat(query(PRIMARY_PORT,
				"SELECT string_agg(DISTINCT address, ',' ORDER BY address) FROM pg_hba_file_rules "
						+ "WHERE type = 'host'"))
			.as("TCP clients only from the allowed network")
			.isEqualTo("127.0.0.1,::1");
		assertThat(healthcheck("primary", PRIMARY_PORT)).isZero();
		assertThat(healthcheck("replica", PRIMARY_PORT)).as("the primary is no replica").isNotZero();
		for (int port : List.of(PRIMARY_PORT + 1, PRIMARY_PORT + 2)) {
			assertThat(healthcheck("replica", port)).as("replica on port " + port).isZero();
			assertThat(awaitQuery(port, "profiles", "SELECT count(*) >= 0 FROM pg_stat_statements")).isEqualTo("t");
		}

		try (Connection c = connect(PRIMARY_PORT, "profiles", "profiles", APP_PASSWORD);
				Statement s = c.createStatement()) {
			s.execute("CREATE TABLE note (text text)");
			s.execute("INSERT INTO note VALUES ('written on the primary')");
		}
		for (int port : List.of(PRIMARY_PORT + 1, PRIMARY_PORT + 2)) {
			assertThat(awaitQuery(port, "profiles", "SELECT text FROM note")).isEqualTo("written on the primary");
		}

		stop(replica1);
		startReplica("replica1", PRIMARY_PORT + 1);
		assertBothReplicasStreamAsQuorum();
		String log = Files.readString(logFile("replica1"));
		assertThat(log).containsOnlyOnce("cloned from").contains("replica1: starting as a standby");
		assertThat(log.split("starting as a standby", -1)).as("two starts").hasSize(3);
	}

	@Test
	@Timeout(value = 1, unit = TimeUnit.MINUTES)
	void aReplicaWaitingForThePrimaryStopsAtOnce() throws Exception {
		Process replica = startReplica("replica1", PRIMARY_PORT + 1);
		awaitLog("replica1", "not ready for a base backup (attempt 1)");
		long start = System.nanoTime();
		PostgresNode.signal(replica.pid(), "TERM");
		assertThat(replica.waitFor(10, TimeUnit.SECONDS)).as("stopped within 10 s").isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		assertThat(Files.readString(logFile("replica1"))).contains("stop requested before the standby started");
		assertThat(dataDir("replica1")).doesNotExist();
	}

	/**
	 * The primary's compose entrypoint on an empty data directory: it initialises the
	 * node and then runs it.
	 */
	private Process startPrimary() throws IOException {
		Map<String, String> env = new HashMap<>();
		env.put("PGDATA", dataDir("primary").toString());
		env.put("POSTGRES_PASSWORD", SUPERUSER_PASSWORD);
		env.put("APP_DB_PASSWORD", APP_PASSWORD);
		env.put("REPLICATION_PASSWORD", REPLICATION_PASSWORD);
		env.put("DB_ALLOWED_CIDR", "127.0.0.1/32");
		env.put("CLUSTER_CONF", Path.of("db/postgresql/cluster.conf").toAbsolutePath().toString());
		return start("primary", env, "bash", SCRIPTS.resolve("primary.sh").toString(), "postgres", "-c",
				"cluster_name=primary", "-c", "port=" + PRIMARY_PORT);
	}

	private Process startReplica(String name, int port) throws IOException {
		Map<String, String> env = new HashMap<>();
		env.put("PGDATA", dataDir(name).toString());
		env.put("REPLICA_NAME", name);
		env.put("REPLICATION_PASSWORD", REPLICATION_PASSWORD);
		env.put("PRIMARY_HOST", "127.0.0.1");
		env.put("PRIMARY_PORT", Integer.toString(PRIMARY_PORT));
		env.put("REPLICATION_PASSFILE", BASE.resolve(name + ".pgpass").toString());
		env.put("RETRY_SECONDS", "0.3");
		env.put("BOOTSTRAP_TIMEOUT", Long.toString(TIMEOUT.toSeconds()));
		return start(name, env, "bash", SCRIPTS.resolve("replica.sh").toString(), "-c", "port=" + port);
	}

	/** Settings of this test's nodes, after whatever the script passes. */
	private Process start(String name, Map<String, String> env, String... command) throws IOException {
		List<String> line = new ArrayList<>(List.of(command));
		line.addAll(List.of("-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + this.sockets, "-c",
				"shared_buffers=32MB"));
		Process process = builder(name, env, line).start();
		this.processes.add(process);
		return process;
	}

	private ProcessBuilder builder(String name, Map<String, String> env, List<String> command) {
		ProcessBuilder builder = new ProcessBuilder(Privileges.unprivileged(command)).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile(name).toFile()));
		// Nothing of the caller's libpq settings may leak into the scripts.
		builder.environment().keySet().removeIf((key) -> key.startsWith("PG"));
		builder.environment().put("PATH", BIN + ":" + System.getenv("PATH"));
		builder.environment().put("LC_MESSAGES", "C");
		builder.environment().putAll(env);
		return builder;
	}

	private int healthcheck(String role, int port) throws Exception {
		Process process = builder("healthcheck",
				Map.of("PGHOST", this.sockets.toString(), "PGPORT", Integer.toString(port)),
				List.of("bash", SCRIPTS.resolve("healthcheck.sh").toString(), role))
			.start();
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		return process.exitValue();
	}

	/**
	 * Stops a node by its pid: a postmaster with SIGINT (fast shutdown), the replica
	 * script still waiting for the primary with SIGTERM, which it traps (SIGINT may be
	 * ignored in a test JVM's children, and then cannot be trapped).
	 */
	private static void stop(Process process) throws InterruptedException {
		if (!process.isAlive()) {
			return;
		}
		boolean postmaster = process.info().command().map((command) -> command.endsWith("/postgres")).orElse(false);
		PostgresNode.signal(process.pid(), postmaster ? "INT" : "TERM");
		if (!process.waitFor(30, TimeUnit.SECONDS)) {
			process.descendants().forEach(ProcessHandle::destroyForcibly);
			process.destroyForcibly().waitFor();
		}
	}

	private void assertBothReplicasStreamAsQuorum() throws Exception {
		List<String> rows = awaitStreaming(2);
		assertThat(rows)
			.as("pg_stat_replication on the primary; its log:\n%s\nreplica1:\n%s\nreplica2:\n%s", tail("primary"),
					tail("replica1"), tail("replica2"))
			.containsExactly("replica1 streaming quorum", "replica2 streaming quorum");
	}

	private List<String> awaitStreaming(int replicas) throws Exception {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (true) {
			List<String> rows = new ArrayList<>();
			try (Connection c = connect(PRIMARY_PORT, "postgres", "postgres", SUPERUSER_PASSWORD);
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT application_name, state, sync_state "
							+ "FROM pg_stat_replication ORDER BY application_name")) {
				while (rs.next()) {
					rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
				}
			}
			catch (SQLException ex) {
				// The primary may not accept connections yet.
				rows.add(ex.getMessage());
			}
			// A new walsender shows "async" until its standby's first reply reports a
			// flush position; only then does it count for the quorum. Wait for that, not
			// just for "streaming".
			if ((rows.size() == replicas && rows.stream().allMatch((row) -> row.endsWith(" streaming quorum")))
					|| System.nanoTime() > deadline) {
				return rows;
			}
			Thread.sleep(200);
		}
	}

	private void awaitLog(String name, String text) throws Exception {
		await().atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(100))
			.untilAsserted(
					() -> assertThat(Files.exists(logFile(name)) && Files.readString(logFile(name)).contains(text))
						.as("'" + text + "' in the log of " + name + ":\n" + tail(name))
						.isTrue());
	}

	private String awaitQuery(int port, String database, String sql) throws Exception {
		return await("an answer from port " + port).atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptionsInstanceOf(SQLException.class)
			.until(() -> {
				try (Connection c = connect(port, database, "postgres", SUPERUSER_PASSWORD)) {
					return Optional.ofNullable(query(c, sql));
				}
			}, (answered) -> true)
			.orElse(null);
	}

	private static String query(int port, String sql) throws SQLException {
		try (Connection c = connect(port, "postgres", "postgres", SUPERUSER_PASSWORD)) {
			return query(c, sql);
		}
	}

	private static String query(Connection c, String sql) throws SQLException {
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

	private static Connection connect(int port, String database, String user, String password) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		properties.setProperty("password", password);
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "30");
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, properties);
	}

	private static Path dataDir(String name) {
		return BASE.resolve(name).resolve("data");
	}

	private static Path logFile(String name) {
		return BASE.resolve(name + ".log");
	}

	private static String tail(String name) throws IOException {
		Path log = logFile(name);
		if (!Files.exists(log)) {
			return "(no log)";
		}
		List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
		return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
	}

}
