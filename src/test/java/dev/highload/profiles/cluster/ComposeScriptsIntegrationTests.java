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

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * The scripts that docker-compose.yml relies on (db/scripts), run against real PostgreSQL
 * server binaries on this machine, so that they cannot rot where no Docker runs.
 * <p>
 * The binaries are Debian's postgresql-15, which .ci/run unpacks: the compose cluster
 * runs 18, but the embedded cluster's 18 has no pg_basebackup, and pg_basebackup 15
 * cannot clone an 18 server, so this test uses 15 throughout. The primary is started by
 * its compose entrypoint, primary.sh, on an empty data directory: initdb, a server on a
 * private Unix socket that runs init-primary.sh, then the real start, as in the official
 * image and in the stand-in built from Debian's packages. Every process runs unprivileged
 * ({@link Privileges}) on ports 24432-24434 and is stopped by its pid.
 * <p>
 * The nodes listen on four loopback addresses, and the tests connect from the one they
 * choose: 127.0.0.1 is inside the container, {@link #APP_NETWORK} stands for the network
 * the service connects from ({@code DB_ALLOWED_CIDR}), {@link #REPLICATION_NETWORK} for
 * the database network ({@code DB_REPLICATION_CIDR}) and {@link #MIGRATION_NETWORK} for a
 * migration container's own network ({@code DB_MIGRATION_CIDR}). The replicas stream from
 * 127.0.0.1, since libpq cannot choose its source address.
 */
class ComposeScriptsIntegrationTests {

	private static final Path BIN = Path.of(System.getProperty("it.pg15.bin",
			System.getenv().getOrDefault("IT_PG15_BIN", "/usr/lib/postgresql/15/bin")));

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

	/** Given as a file, as a Compose secret would be. */
	private static final String OWNER_PASSWORD = "owner-password";

	private static final Passwords PASSWORDS = new Passwords(SUPERUSER_PASSWORD, APP_PASSWORD, OWNER_PASSWORD,
			REPLICATION_PASSWORD);

	/** What a volume made with older secrets holds. */
	private static final Passwords OLD_PASSWORDS = new Passwords("was-superuser-password", "was-app-password",
			"was-owner-password", "was-repl:pass\\'word");

	private static final String APP_NETWORK = "127.0.0.2";

	private static final String REPLICATION_NETWORK = "127.0.0.3";

	private static final String MIGRATION_NETWORK = "127.0.0.4";

	private static final String INSIDE = "127.0.0.1";

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final List<Process> processes = new ArrayList<>();

	private Path sockets;

	@BeforeEach
	void prepare() throws IOException {
		assumeTrue(Files.isExecutable(BIN.resolve("pg_basebackup")) && Files.isExecutable(BIN.resolve("postgres")),
				"PostgreSQL 15 server binaries not found in " + BIN
						+ ": point IT_PG15_BIN or -Dit.pg15.bin at the bin directory of Debian's postgresql-15 and "
						+ "postgresql-client-15 (.ci/run unpacks them under target/)");
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
		assertThat(healthcheck("primary", PRIMARY_PORT)).isZero();
		assertThat(healthcheck("replica", PRIMARY_PORT)).as("the primary is no replica").isNotZero();
		for (int port : List.of(PRIMARY_PORT + 1, PRIMARY_PORT + 2)) {
			assertThat(healthcheck("replica", port)).as("replica on port " + port).isZero();
			assertThat(awaitQuery(port, "profiles", "SELECT count(*) >= 0 FROM pg_stat_statements")).isEqualTo("t");
		}

		try (Connection c = connect(APP_NETWORK, PRIMARY_PORT, "profiles", "profiles_owner", OWNER_PASSWORD);
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

	/**
	 * What init-primary.sh and the service's migrations leave each role: the superuser
	 * only inside the container, replication only from the database network, the two
	 * application roles only to their database and only from the service's network; the
	 * runtime role reads and inserts users and may do nothing else. A primary without
	 * replicas, so without synchronous replication.
	 */
	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void eachRoleMayDoOnlyWhatItNeedsAndOnlyFromWhereItNeedsIt() throws Exception {
		startPrimary("-c", "synchronous_standby_names=");
		assertThat(awaitQuery(PRIMARY_PORT, "postgres", "SELECT 'up'")).as("the superuser inside").isEqualTo("up");
		assertThat(hbaRules(PRIMARY_PORT)).containsExactly(expectedHbaRules(APP_NETWORK));

		assertRefusedByPgHba(APP_NETWORK, "postgres", "postgres", SUPERUSER_PASSWORD);
		assertRefusedByPgHba(APP_NETWORK, "profiles", "postgres", SUPERUSER_PASSWORD);
		assertRefusedByPgHba(REPLICATION_NETWORK, "postgres", "postgres", SUPERUSER_PASSWORD);
		assertRefusedByPgHba(APP_NETWORK, "postgres", "profiles", APP_PASSWORD);
		assertRefusedByPgHba(REPLICATION_NETWORK, "profiles", "profiles", APP_PASSWORD);
		assertRefusedByPgHba(APP_NETWORK, "postgres", "replicator", REPLICATION_PASSWORD);
		assertThatExceptionOfType(SQLException.class).as("replication from the service's network")
			.isThrownBy(() -> replicationConnection(APP_NETWORK).close())
			.satisfies(ComposeScriptsIntegrationTests::refusedByPgHba);
		try (Connection replication = replicationConnection(REPLICATION_NETWORK)) {
			assertThat(replication.isValid(5)).as("replication from the database network").isTrue();
		}

		// The service's migrations, as the owner, from the service's network.
		Flyway.configure()
			.dataSource(url(APP_NETWORK, PRIMARY_PORT, "profiles"), "profiles_owner", OWNER_PASSWORD)
			.locations("filesystem:db/migration")
			.placeholders(Map.of("runtime_role", "\"profiles\""))
			.load()
			.migrate();
		try (Connection c = connect(APP_NETWORK, PRIMARY_PORT, "profiles", "profiles", APP_PASSWORD);
				Statement s = c.createStatement()) {
			s.execute("INSERT INTO users (id, first_name, second_name, birthdate, password_hash) "
					+ "VALUES (gen_random_uuid(), 'Ivan', 'Petrov', '1990-01-01', 'hash')");
			assertThat(query(c, "SELECT count(*) FROM users")).isEqualTo("1");
			// Read alone, by a service that only validates the migrations (V5).
			assertThat(query(c, "SELECT count(*) > 0 FROM flyway_schema_history")).isEqualTo("t");
			for (String sql : List.of("CREATE TABLE note (text text)", "CREATE TEMP TABLE note (text text)",
					"UPDATE users SET city = 'Moscow'", "DELETE FROM users", "TRUNCATE users",
					"DELETE FROM flyway_schema_history", "ALTER TABLE users ADD COLUMN note text",
					"DROP TABLE users")) {
				assertThatExceptionOfType(SQLException.class).as(sql)
					.isThrownBy(() -> s.execute(sql))
					.satisfies((ex) -> assertThat(ex.getSQLState()).as(sql).isEqualTo("42501"));
			}
			assertThat(query(c,
					"SELECT (SELECT count(*) FROM pg_class WHERE relowner = current_user::regrole)"
							+ " + (SELECT count(*) FROM pg_namespace WHERE nspowner = current_user::regrole)"
							+ " + (SELECT count(*) FROM pg_database WHERE datdba = current_user::regrole)"))
				.as("objects the runtime role owns")
				.isEqualTo("0");
			// The standbys through monitoring.standbys() alone
			// (db/scripts/monitoring.sh).
			assertThat(query(c,
					"SELECT pg_has_role('pg_read_all_stats', 'MEMBER') || ' '"
							+ "|| pg_has_role('pg_monitor', 'MEMBER') || ' '"
							+ "|| has_function_privilege('monitoring.standbys()', 'EXECUTE')"))
				.isEqualTo("false false true");
		}
	}

	/**
	 * A volume made with older secrets, and with a pg_hba.conf an older script or a hand
	 * left open, started with the current secrets: every password and pg_hba.conf follow
	 * them before anyone can connect, on the primary and, given the networks, on a
	 * replica. The migration role has a network of its own ({@code DB_MIGRATION_CIDR}).
	 */
	@Test
	@Timeout(value = 3, unit = TimeUnit.MINUTES)
	void anOldVolumeFollowsTheCurrentSecretsAndNetworksAtEveryStart() throws Exception {
		Process old = startPrimary(OLD_PASSWORDS, Map.of());
		await("the primary with the old passwords").atMost(TIMEOUT)
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptionsInstanceOf(SQLException.class)
			.until(() -> {
				try (Connection c = connect(PRIMARY_PORT, "postgres", "postgres", OLD_PASSWORDS.superuser())) {
					return c.isValid(5);
				}
			});
		// The runtime role's membership that scripts before monitoring.sh granted.
		try (Connection c = connect(PRIMARY_PORT, "postgres", "postgres", OLD_PASSWORDS.superuser());
				Statement s = c.createStatement()) {
			s.execute("SET synchronous_commit = local");
			s.execute("GRANT pg_read_all_stats TO profiles");
		}
		stop(old);
		Files.writeString(dataDir("primary").resolve("pg_hba.conf"), "local all all trust\nhost all all all trust\n");

		Map<String, String> networks = Map.of("DB_ALLOWED_CIDR", APP_NETWORK + "/32", "DB_REPLICATION_CIDR",
				REPLICATION_NETWORK + "/32", "DB_MIGRATION_CIDR", MIGRATION_NETWORK + "/32");
		startPrimary(PASSWORDS, networks);
		assertThat(awaitQuery(PRIMARY_PORT, "postgres", "SELECT 'up'")).isEqualTo("up");
		assertThat(hbaRules(PRIMARY_PORT)).containsExactly(expectedHbaRules(MIGRATION_NETWORK));
		String log = Files.readString(logFile("primary"));
		assertThat(log).contains("primary.sh: re-derived from the secrets: passwords of profiles_owner, profiles, "
				+ "replicator and postgres; pg_hba.conf: profiles from " + APP_NETWORK + "/32, profiles_owner from "
				+ MIGRATION_NETWORK + "/32, replicator from " + REPLICATION_NETWORK + "/32");
		for (Passwords passwords : List.of(OLD_PASSWORDS, PASSWORDS)) {
			assertThat(log).doesNotContain(passwords.superuser(), passwords.app(), passwords.owner(),
					passwords.replication());
		}
		assertThat(log).contains("monitoring: profiles reads the standbys through monitoring.standbys()");
		assertThat(
				awaitQuery(PRIMARY_PORT, "postgres", "SELECT pg_has_role('profiles', 'pg_read_all_stats', 'MEMBER')"))
			.as("the old membership revoked")
			.isEqualTo("f");
		assertThat(Files.readString(dataDir("primary").resolve("postgresql.conf")).split("\ninclude = ", -1))
			.as("one include of cluster.conf")
			.hasSize(2);

		assertAccepted(INSIDE, "postgres", "postgres", SUPERUSER_PASSWORD);
		assertWrongPassword(INSIDE, "postgres", "postgres", OLD_PASSWORDS.superuser());
		assertAccepted(APP_NETWORK, "profiles", "profiles", APP_PASSWORD);
		assertWrongPassword(APP_NETWORK, "profiles", "profiles", OLD_PASSWORDS.app());
		assertAccepted(MIGRATION_NETWORK, "profiles", "profiles_owner", OWNER_PASSWORD);
		assertWrongPassword(MIGRATION_NETWORK, "profiles", "profiles_owner", OLD_PASSWORDS.owner());
		try (Connection replication = replicationConnection(REPLICATION_NETWORK, REPLICATION_PASSWORD)) {
			assertThat(replication.isValid(5)).isTrue();
		}
		assertThatExceptionOfType(SQLException.class).as("replication with the old password")
			.isThrownBy(() -> replicationConnection(REPLICATION_NETWORK, OLD_PASSWORDS.replication()).close())
			.satisfies(ComposeScriptsIntegrationTests::wrongPassword);

		// What the old file let in, and each application role from the other's network.
		assertRefusedByPgHba(APP_NETWORK, "postgres", "postgres", SUPERUSER_PASSWORD);
		assertRefusedByPgHba(REPLICATION_NETWORK, "profiles", "profiles", APP_PASSWORD);
		assertRefusedByPgHba(APP_NETWORK, "profiles", "profiles_owner", OWNER_PASSWORD);
		assertRefusedByPgHba(MIGRATION_NETWORK, "profiles", "profiles", APP_PASSWORD);
		assertRefusedByPgHba(MIGRATION_NETWORK, "postgres", "profiles_owner", OWNER_PASSWORD);

		// A replica clones and streams with the new replication password, and writes its
		// own
		// pg_hba.conf again at its next start.
		Process replica = startReplica("replica1", PRIMARY_PORT + 1, REPLICATION_PASSWORD, networks);
		assertThat(awaitStreaming(1)).as("pg_stat_replication; replica1:\n%s", tail("replica1"))
			.containsExactly("replica1 streaming quorum");
		stop(replica);
		Files.writeString(dataDir("replica1").resolve("pg_hba.conf"), "local all all trust\nhost all all all trust\n");
		startReplica("replica1", PRIMARY_PORT + 1, REPLICATION_PASSWORD, networks);
		assertThat(awaitQuery(PRIMARY_PORT + 1, "postgres", "SELECT pg_is_in_recovery()")).isEqualTo("t");
		assertThat(hbaRules(PRIMARY_PORT + 1)).containsExactly(expectedHbaRules(MIGRATION_NETWORK));
		assertThat(
				Files.readString(logFile("replica1"))
					.split("replica1: re-derived from the environment: " + "pg_hba.conf: profiles from " + APP_NETWORK
							+ "/32, profiles_owner from " + MIGRATION_NETWORK + "/32", -1))
			.as("both starts")
			.hasSize(3);
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
	private Process startPrimary(String... settings) throws IOException {
		return startPrimary(PASSWORDS, Map.of(), settings);
	}

	/**
	 * The primary's compose entrypoint, on whatever data directory there is. The
	 * migration role's password comes from a file.
	 * @param passwords the secrets
	 * @param variables more of its environment
	 * @param settings for postgres
	 */
	private Process startPrimary(Passwords passwords, Map<String, String> variables, String... settings)
			throws IOException {
		Path secret = BASE.resolve("migration-password");
		Files.writeString(secret, passwords.owner() + "\n");
		Map<String, String> env = new HashMap<>();
		env.put("PGDATA", dataDir("primary").toString());
		env.put("POSTGRES_PASSWORD", passwords.superuser());
		env.put("APP_DB_PASSWORD", passwords.app());
		env.put("APP_DB_MIGRATION_PASSWORD_FILE", secret.toString());
		env.put("REPLICATION_PASSWORD", passwords.replication());
		env.put("DB_ALLOWED_CIDR", APP_NETWORK + "/32");
		env.put("DB_REPLICATION_CIDR", REPLICATION_NETWORK + "/32");
		env.put("CLUSTER_CONF", Path.of("db/postgresql/cluster.conf").toAbsolutePath().toString());
		env.putAll(variables);
		List<String> command = new ArrayList<>(List.of("bash", SCRIPTS.resolve("primary.sh").toString(), "postgres",
				"-c", "cluster_name=primary", "-c", "port=" + PRIMARY_PORT));
		command.addAll(List.of(settings));
		return start("primary", env, command.toArray(String[]::new));
	}

	private Process startReplica(String name, int port) throws IOException {
		return startReplica(name, port, REPLICATION_PASSWORD, Map.of());
	}

	/**
	 * A replica's compose entrypoint. Given the networks among the variables
	 * ({@code DB_ALLOWED_CIDR}...), it writes its own pg_hba.conf at every start.
	 */
	private Process startReplica(String name, int port, String password, Map<String, String> variables)
			throws IOException {
		Map<String, String> env = new HashMap<>();
		env.put("PGDATA", dataDir(name).toString());
		env.put("REPLICA_NAME", name);
		if (name.equals("replica1")) {
			Path secret = BASE.resolve("replication-password");
			Files.writeString(secret, password);
			env.put("REPLICATION_PASSWORD_FILE", secret.toString());
		}
		else {
			env.put("REPLICATION_PASSWORD", password);
		}
		env.putAll(variables);
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
		line.addAll(List.of("-c",
				"listen_addresses=" + INSIDE + "," + APP_NETWORK + "," + REPLICATION_NETWORK + "," + MIGRATION_NETWORK,
				"-c", "unix_socket_directories=" + this.sockets, "-c", "shared_buffers=32MB"));
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

	/**
	 * pg_hba.conf as the server read it: one line per rule, "-" for no address, the
	 * netmask when there is one, and the error of a line it could not read.
	 */
	private static List<String> hbaRules(int port) throws SQLException {
		List<String> rules = new ArrayList<>();
		try (Connection c = connect(port, "postgres", "postgres", SUPERUSER_PASSWORD);
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT concat_ws(' ', type, array_to_string(database, ','), "
						+ "array_to_string(user_name, ','), coalesce(address, '-'), netmask, auth_method, error) "
						+ "FROM pg_hba_file_rules ORDER BY line_number")) {
			while (rs.next()) {
				rules.add(rs.getString(1));
			}
		}
		return rules;
	}

	/**
	 * The rules derive-access.sh writes, as {@link #hbaRules(int)} shows them, with the
	 * migration role's network.
	 */
	private static String[] expectedHbaRules(String migrationNetwork) {
		String v4 = "255.255.255.255";
		String v6 = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
		return new String[] { "local all all - trust", "host all all 127.0.0.1 " + v4 + " scram-sha-256",
				"host all all ::1 " + v6 + " scram-sha-256",
				"host replication replicator 127.0.0.1 " + v4 + " scram-sha-256",
				"host replication replicator ::1 " + v6 + " scram-sha-256",
				"host replication replicator " + REPLICATION_NETWORK + " " + v4 + " scram-sha-256",
				"host profiles profiles " + APP_NETWORK + " " + v4 + " scram-sha-256",
				"host profiles profiles_owner " + migrationNetwork + " " + v4 + " scram-sha-256",
				"host all all all reject", "host replication all all reject" };
	}

	private static void assertAccepted(String from, String database, String user, String password) throws SQLException {
		try (Connection c = connect(from, PRIMARY_PORT, database, user, password)) {
			assertThat(query(c, "SELECT current_user")).isEqualTo(user);
		}
	}

	/** Let through by pg_hba.conf, then refused for the password. */
	private static void assertWrongPassword(String from, String database, String user, String password) {
		assertThatExceptionOfType(SQLException.class).as("%s to database %s from %s", user, database, from)
			.isThrownBy(() -> connect(from, PRIMARY_PORT, database, user, password).close())
			.satisfies(ComposeScriptsIntegrationTests::wrongPassword);
	}

	private static void wrongPassword(SQLException ex) {
		assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("28P01");
	}

	private static void assertRefusedByPgHba(String from, String database, String user, String password) {
		assertThatExceptionOfType(SQLException.class).as("%s to database %s from %s", user, database, from)
			.isThrownBy(() -> connect(from, PRIMARY_PORT, database, user, password).close())
			.satisfies(ComposeScriptsIntegrationTests::refusedByPgHba);
	}

	/** Refused before any password was asked for: by a rule, or for want of one. */
	private static void refusedByPgHba(SQLException ex) {
		assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("28000");
		assertThat(ex.getMessage()).contains("pg_hba.conf");
	}

	/**
	 * A physical replication connection as the streaming role, as pg_basebackup opens.
	 */
	private static Connection replicationConnection(String from) throws SQLException {
		return replicationConnection(from, REPLICATION_PASSWORD);
	}

	private static Connection replicationConnection(String from, String password) throws SQLException {
		Properties properties = credentials("replicator", password);
		properties.setProperty("replication", "true");
		properties.setProperty("assumeMinServerVersion", "9.4");
		properties.setProperty("preferQueryMode", "simple");
		return DriverManager.getConnection(url(from, PRIMARY_PORT, "postgres"), properties);
	}

	private static Connection connect(int port, String database, String user, String password) throws SQLException {
		return connect(INSIDE, port, database, user, password);
	}

	/** A connection from one of the loopback addresses, to the node's port on it. */
	private static Connection connect(String from, int port, String database, String user, String password)
			throws SQLException {
		return DriverManager.getConnection(url(from, port, database), credentials(user, password));
	}

	private static String url(String from, int port, String database) {
		return "jdbc:postgresql://" + from + ":" + port + "/" + database + "?localSocketAddress=" + from;
	}

	private static Properties credentials(String user, String password) {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		properties.setProperty("password", password);
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "30");
		return properties;
	}

	/** The secrets a primary is started with. */
	private record Passwords(String superuser, String app, String owner, String replication) {
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
