package dev.highload.profiles;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docker-compose.yml as a user runs it, through the {@code docker compose} CLI: secrets
 * made by docker/secrets.sh, the service's image built from the Dockerfile, everything
 * started and every healthcheck waited for; then what the deployment promises is checked,
 * the database through psql in the nodes' containers (the superuser is refused over TCP).
 * <p>
 * The service, in the host's network namespace, gets free ports of the test's choosing,
 * and the networks get subnets of their own ({@code -Dit.compose.network-prefix},
 * {@code -Dit.compose.db-subnet}, {@code -Dit.compose.admin-subnet}; defaults 172.28.201,
 * 172.28.211.0/24 and 172.28.221.0/24), so the test can run beside a
 * {@code docker compose up} of the same file.
 */
@RequiresDocker
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ComposeDeploymentIntegrationTests {

	private static final List<String> NODES = List.of("primary", "replica1", "replica2");

	private static final List<String> REPLICAS = List.of("replica1", "replica2");

	/**
	 * The point read, the credential read and the search all read users as {@code u};
	 * inserts and the router's position probes do not match.
	 */
	private static final String SELECTS = "%users u%";

	private static final Path WORK = Path.of("target/compose-deployment").toAbsolutePath();

	private static final ComposeProject COMPOSE = new ComposeProject("profiles-compose-it",
			List.of(Path.of("docker-compose.yml")),
			Map.of("APP_PORT", ComposeProject.freePort(), "MANAGEMENT_PORT", ComposeProject.freePort(),
					"NETWORK_PREFIX", System.getProperty("it.compose.network-prefix", "172.28.201"),
					"DB_NETWORK_SUBNET", System.getProperty("it.compose.db-subnet", "172.28.211.0/24"),
					"ADMIN_NETWORK_SUBNET", System.getProperty("it.compose.admin-subnet", "172.28.221.0/24"),
					"SECRETS_DIR", WORK.resolve("secrets").toString()));

	private static boolean started;

	private static ApiClient api;

	@BeforeAll
	static void up() throws Exception {
		COMPOSE.upAnew(Duration.ofMinutes(15), WORK);
		started = true;
		var address = COMPOSE.hostAddress("APP_PORT");
		api = new ApiClient(address.getHost(), address.getPort());
	}

	@AfterAll
	static void down() throws Exception {
		if (started) {
			// The service's image is this project's own: removed with it.
			COMPOSE.compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans", "--rmi", "local");
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
	void bothReplicasStreamAsQuorumStandbys() throws Exception {
		List<String> rows = COMPOSE
			.psql("primary", "postgres",
					"SELECT application_name || ' ' || state || ' ' || sync_state FROM pg_stat_replication "
							+ "ORDER BY application_name")
			.lines()
			.toList();
		assertThat(rows).containsExactly("replica1 streaming quorum", "replica2 streaming quorum");
		assertThat(query("primary", "SELECT current_setting('synchronous_standby_names')"))
			.isEqualTo("ANY 1 (replica1, replica2)");
		assertThat(query("primary", "SELECT current_setting('synchronous_commit')")).isEqualTo("remote_apply");
	}

	@Test
	@Order(4)
	void readsAndWritesGoOnWhenAReplicaStops() throws Exception {
		UUID id = api.register("Before", "Stop", "secret-password");
		ComposeProject.Result stop = COMPOSE.compose(Duration.ofMinutes(2), "stop", "replica2");
		assertThat(stop.exitCode()).as(stop.output()).isZero();

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

	@Test
	@Order(5)
	void tokensSignedWithAPublishedKeyAreRefused() throws Exception {
		ForgedTokens.assertPublishedKeysRefused(api, COMPOSE.secret("token-keys"));
	}

	@Test
	@Order(7)
	void healthShowsTheStatusAlone() throws Exception {
		var management = COMPOSE.hostAddress("MANAGEMENT_PORT");
		ApiClient.Response health = new ApiClient(management.getHost(), management.getPort()).get("/actuator/health");
		assertThat(health.status()).isEqualTo(200);
		assertThat(health.json().get("status").asString()).isEqualTo("UP");
		assertThat(health.json().has("components")).as(health.body()).isFalse();
	}

	/**
	 * pg_hba.conf as derive-access.sh writes it, tried from a standby's container, which
	 * is on all three networks: the superuser is refused over TCP from any, replication
	 * from all but the db network, the service's runtime role reaches its database from
	 * the app network only, and the schema's owner from the admin network only. The
	 * standby's own file, rewritten at its start, admits the owner the same way: after a
	 * failover, the migrations follow the new primary.
	 */
	@Test
	@Order(6)
	void eachRoleIsAcceptedOnlyFromWhereItIsNeeded() throws Exception {
		String primaryApp = COMPOSE.networkAddress("primary", "default");
		String primaryDb = COMPOSE.networkAddress("primary", "db");
		String primaryAdmin = COMPOSE.networkAddress("primary", "admin");
		String superuser = COMPOSE.secret("postgres-password");
		String replication = COMPOSE.secret("replication-password");
		String runtime = COMPOSE.secret("app-db-password");
		String owner = COMPOSE.secret("app-db-migration-password");
		for (String address : List.of(primaryApp, primaryDb, primaryAdmin)) {
			assertThat(connect(address, "postgres", superuser, "dbname=postgres")).containsAnyOf("pg_hba.conf rejects",
					"no pg_hba.conf entry");
		}
		for (String address : List.of(primaryApp, primaryAdmin)) {
			assertThat(connect(address, "replicator", replication, "replication=true"))
				.containsAnyOf("pg_hba.conf rejects", "no pg_hba.conf entry");
		}
		assertThat(connect(primaryDb, "replicator", replication, "replication=true")).isEqualTo("ok");
		assertThat(connect(primaryApp, "profiles", runtime, "dbname=profiles")).isEqualTo("ok");
		for (String address : List.of(primaryDb, primaryAdmin)) {
			assertThat(connect(address, "profiles", runtime, "dbname=profiles")).containsAnyOf("pg_hba.conf rejects",
					"no pg_hba.conf entry");
		}
		assertThat(connect(primaryAdmin, "profiles_owner", owner, "dbname=profiles")).isEqualTo("ok");
		for (String address : List.of(primaryApp, primaryDb)) {
			assertThat(connect(address, "profiles_owner", owner, "dbname=profiles"))
				.containsAnyOf("pg_hba.conf rejects", "no pg_hba.conf entry");
		}
		assertThat(connect(COMPOSE.networkAddress("replica1", "admin"), "profiles_owner", owner, "dbname=profiles"))
			.isEqualTo("ok");
		assertThat(connect(COMPOSE.networkAddress("replica1", "default"), "profiles_owner", owner, "dbname=profiles"))
			.containsAnyOf("pg_hba.conf rejects", "no pg_hba.conf entry");
	}

	/**
	 * The migrations ran in the one-shot migrate container, to its end, and it alone was
	 * given the owner's password: none of the service's secrets holds it (compared by
	 * SHA-256, so no password is handed to the service's container to compare), and no
	 * {@code APP_DB_MIGRATION_*} variable is in its environment.
	 */
	@Test
	@Order(8)
	void onlyTheMigrationContainerHoldsTheOwnersPassword() throws Exception {
		String migrate = container("migrate");
		assertThat(inspect(migrate, "{{.State.Status}} {{.State.ExitCode}}")).isEqualTo("exited 0");
		assertThat(secretMounts(migrate)).containsExactly("/run/secrets/app.db.migration.password");

		// Each file's name and the SHA-256 of its content less a trailing line break, as
		// ComposeProject#secret reads a secret.
		ComposeProject.Result digests = COMPOSE
			.compose(Duration.ofSeconds(60), "exec", "-T", "app", "bash", "-c", "for f in /run/secrets/*; do "
					+ "printf '%s %s\\n' \"${f##*/}\" \"$(printf %s \"$(cat \"$f\")\" | sha256sum | cut -d' ' -f1)\"; done");
		assertThat(digests.exitCode()).as(digests.output()).isZero();
		Map<String, String> secrets = new HashMap<>();
		digests.stdout().lines().map((line) -> line.split(" ")).forEach((fields) -> secrets.put(fields[0], fields[1]));
		assertThat(secrets).containsOnlyKeys("app.db.password", "app.auth.token-keys");
		// The same digest of the runtime role's password: the comparison can match.
		assertThat(secrets).containsEntry("app.db.password", sha256(COMPOSE.secret("app-db-password")));
		assertThat(secrets).doesNotContainValue(sha256(COMPOSE.secret("app-db-migration-password")));
		assertThat(inspect(container("app"), "{{join .Config.Env \"\\n\"}}").lines())
			.noneMatch((variable) -> variable.startsWith("APP_DB_MIGRATION_"));
	}

	/**
	 * Where the service connects from (the host's network namespace, through the app
	 * network's bridge), this test's own JDBC logins: the runtime role is accepted by the
	 * primary and a replica, the owner by neither, its password notwithstanding. replica1
	 * stands for both replicas: replica2 was stopped by
	 * {@link #readsAndWritesGoOnWhenAReplicaStops}.
	 */
	@Test
	@Order(9)
	void theOwnerIsRefusedWhereTheServiceConnectsFrom() throws Exception {
		String runtime = COMPOSE.secret("app-db-password");
		String owner = COMPOSE.secret("app-db-migration-password");
		for (String node : List.of("primary", "replica1")) {
			String address = COMPOSE.networkAddress(node, "default");
			assertThat(login(address, "profiles", runtime)).as(node).isEqualTo("ok");
			assertThat(login(address, "profiles_owner", owner)).as(node)
				.containsAnyOf("pg_hba.conf rejects", "no pg_hba.conf entry");
		}
	}

	/**
	 * Issue 59: the owner of the application's database (the migration role, which owns
	 * it) puts its own schema before pg_catalog in the database's search_path and makes a
	 * type named like one the monitoring function returns. db/scripts/monitoring.sh,
	 * which the primary runs as the superuser in that database at every start, still
	 * makes the function of pg_catalog's types and succeeds: the owner's settings do not
	 * reach the superuser's session. Without the script's own search_path the superuser's
	 * session took the owner's {@code text}, and the script failed.
	 */
	@Test
	@Order(10)
	void theOwnersSettingsDoNotReachTheSuperusersScript() throws Exception {
		COMPOSE.psql("primary", "profiles", "SET ROLE profiles_owner; CREATE DOMAIN public.text AS pg_catalog.varchar;"
				+ " ALTER DATABASE profiles SET search_path = public, pg_catalog");
		try {
			ComposeProject.Result monitoring = COMPOSE.compose(Duration.ofSeconds(60), "exec", "-T", "-u", "postgres",
					"primary", "bash", "/db/scripts/monitoring.sh");
			assertThat(monitoring.exitCode()).as(monitoring.output()).isZero();
			assertThat(COMPOSE.psql("primary", "profiles",
					"SELECT string_agg(DISTINCT t.typnamespace::regnamespace::text, ',') FROM pg_proc p"
							+ " CROSS JOIN unnest(p.proallargtypes) AS a(type) JOIN pg_type t ON t.oid = a.type"
							+ " WHERE p.oid = 'monitoring.standbys()'::regprocedure"))
				.isEqualTo("pg_catalog");
		}
		finally {
			COMPOSE.psql("primary", "profiles",
					"ALTER DATABASE profiles RESET search_path; DROP DOMAIN IF EXISTS public.text");
		}
	}

	/**
	 * One JDBC login from the test's process, on the host: "ok", or the driver's error.
	 */
	private static String login(String host, String user, String password) {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		properties.setProperty("password", password);
		properties.setProperty("connectTimeout", "5");
		try (Connection connection = DriverManager.getConnection("jdbc:postgresql://" + host + ":5432/profiles",
				properties)) {
			return connection.isValid(5) ? "ok" : "not valid";
		}
		catch (SQLException ex) {
			return ex.getMessage();
		}
	}

	private static String container(String service) throws Exception {
		ComposeProject.Result ps = COMPOSE.compose(Duration.ofSeconds(30), "ps", "-a", "-q", service);
		assertThat(ps.exitCode()).as(ps.output()).isZero();
		return ps.stdout().strip();
	}

	private static String inspect(String container, String format) throws Exception {
		ComposeProject.Result result = COMPOSE.run(Duration.ofSeconds(30),
				List.of("docker", "inspect", "-f", format, container));
		assertThat(result.exitCode()).as(result.output()).isZero();
		return result.stdout().strip();
	}

	/** Where Compose mounted a container's secrets: one file each under /run/secrets. */
	private static List<String> secretMounts(String container) throws Exception {
		return Arrays.stream(inspect(container, "{{range .Mounts}}{{.Destination}} {{end}}").split(" "))
			.filter((destination) -> destination.startsWith("/run/secrets/"))
			.toList();
	}

	private static String sha256(String text) throws Exception {
		return HexFormat.of()
			.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
	}

	/** One connection attempt from replica1's container: "ok", or psql's error. */
	private static String connect(String host, String user, String password, String options) throws Exception {
		// The password in docker's environment, not on its command line.
		ComposeProject.Result result = COMPOSE.withEnvironment(Map.of("PGPASSWORD", password))
			.compose(Duration.ofSeconds(60), "exec", "-T", "-e", "PGPASSWORD", "replica1", "psql", "-XAtq",
					"host=" + host + " user=" + user + " connect_timeout=5 " + options, "-c",
					options.startsWith("replication") ? "IDENTIFY_SYSTEM" : "SELECT 1");
		return result.exitCode() == 0 ? "ok" : result.output();
	}

	private static Map<String, Long> calls(String pattern) throws Exception {
		Map<String, Long> calls = new HashMap<>();
		for (String node : NODES) {
			calls.put(node, Long.parseLong(COMPOSE.psql(node, "profiles",
					"SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ILIKE '" + pattern + "'")));
		}
		return calls;
	}

	private static void awaitReplicasCaughtUp() throws Exception {
		String lsn = query("primary", "SELECT pg_current_wal_lsn()::text");
		for (String replica : REPLICAS) {
			await(replica + " catching up").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> query(replica, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn"), "t"::equals);
		}
	}

	private static String query(String node, String sql) throws Exception {
		return COMPOSE.psql(node, "postgres", sql);
	}

}
