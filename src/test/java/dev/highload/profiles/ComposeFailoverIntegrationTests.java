package dev.highload.profiles;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The compose deployment's failover, as a user runs it: the lost-write set check
 * ({@link LostWriteCheck}) sends registrations through the compose service while the
 * primary's container is killed ({@code docker compose kill}, SIGKILL) right after a
 * replication stall, then {@code docker/failover.sh} fences it, promotes the freshest
 * standby, re-points the other and clones the old primary again; the writers carry on,
 * and every marker is compared with the rows on the new primary.
 * <p>
 * It drives the {@code docker compose} CLI itself (a project of its own, ports chosen by
 * Docker, a subnet of its own: {@code -Dit.compose.failover-subnet}, default
 * 172.28.202.0/24), since the failover re-creates containers under compose's control.
 * Skipped, with Testcontainers' message, where no Docker engine runs, and with a message
 * of its own where the engine has no {@code docker compose}. CI runs it small;
 * {@code -Dlost-write.acknowledged} and {@code -Dlost-write.writers} set the size, as for
 * {@link LostWriteIntegrationTests}.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ComposeFailoverIntegrationTests {

	private static final int ACKNOWLEDGED = Integer.getInteger("lost-write.acknowledged", 300);

	private static final int WRITERS = Integer.getInteger("lost-write.writers", 16);

	private static final Duration STALL = Duration.ofMillis(Long.getLong("lost-write.stall-ms", 2000));

	private static final String PROJECT = "profiles-failover-it";

	private static final List<String> NODES = List.of("primary", "replica1", "replica2");

	private static final Path WORK = Path.of("target/compose-failover").toAbsolutePath();

	private static final Path OVERRIDE = WORK.resolve("failover.yml");

	private static boolean started;

	@BeforeAll
	static void up() throws Exception {
		assumeTrue(exec(Duration.ofSeconds(30), "docker", "compose", "version").exitCode() == 0,
				"docker compose (Compose v2) is not installed; docker/local-images.sh installs it");
		Files.createDirectories(WORK);
		Files.deleteIfExists(OVERRIDE);
		// A run that was interrupted may have left its project behind.
		compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans");
		started = true;
		Result up = compose(Duration.ofMinutes(15), "up", "--build", "-d", "--wait");
		assertThat(up.exitCode()).as("docker compose up:\n" + up.output()).isZero();
	}

	@AfterAll
	static void down() throws Exception {
		if (started) {
			// The service's image is this project's own: removed with it.
			compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans", "--rmi", "local");
		}
	}

	@Test
	void killedPrimaryContainerLosesNoAcknowledgedWrite() throws Exception {
		Duration timeLimit = Duration.ofSeconds(300 + ACKNOWLEDGED / 10);
		LostWriteCheck.Settings settings = new LostWriteCheck.Settings(true, WRITERS, ACKNOWLEDGED / 2, ACKNOWLEDGED,
				STALL, timeLimit, WORK);

		LostWriteCheck.Report report = LostWriteCheck.run(settings, new ComposeTarget(serviceAddress()));

		assertThat(report.acknowledged()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isZero();
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.newPrimary()).isNotEqualTo("primary");
		// The old primary was cloned again: both others stream from the new primary.
		assertThat(psql(report.newPrimary(), "postgres",
				"SELECT string_agg(application_name || ' ' || state || ' ' || sync_state, ', '"
						+ " ORDER BY application_name) FROM pg_stat_replication"))
			.isEqualTo(NODES.stream()
				.filter((node) -> !node.equals(report.newPrimary()))
				.map((node) -> node + " streaming quorum")
				.reduce((a, b) -> a + ", " + b)
				.orElseThrow());
	}

	private static URI serviceAddress() throws Exception {
		Result port = compose(Duration.ofSeconds(30), "port", "app", "8080");
		assertThat(port.exitCode()).as(port.output()).isZero();
		String address = port.stdout().strip().replace("0.0.0.0", "127.0.0.1");
		return URI.create("http://" + address + "/user/register");
	}

	/** The deployment through the compose CLI and docker/failover.sh. */
	private record ComposeTarget(URI register) implements LostWriteCheck.Target {

		@Override
		public void stallReplication() throws Exception {
			String pids = psql("primary", "postgres", "SELECT string_agg(pid::text, ' ') FROM pg_stat_replication");
			assertThat(pids).as("walsenders on the primary").isNotBlank();
			// As root in the container: bash's own kill, since the image need not ship
			// procps.
			Result stop = compose(Duration.ofSeconds(30), "exec", "-T", "primary", "bash", "-c", "kill -STOP " + pids);
			assertThat(stop.exitCode()).as(stop.output()).isZero();
		}

		@Override
		public void crashPrimary() throws Exception {
			Result kill = compose(Duration.ofSeconds(60), "kill", "-s", "SIGKILL", "primary");
			assertThat(kill.exitCode()).as(kill.output()).isZero();
		}

		@Override
		public String failover() throws Exception {
			Result failover = run(Duration.ofMinutes(10), List.of("bash", "docker/failover.sh", "-p", PROJECT));
			assertThat(failover.exitCode()).as("docker/failover.sh:\n" + failover.output()).isZero();
			return failover.output();
		}

		@Override
		public LostWriteCheck.Rows rows(String markerPrefix) throws Exception {
			LostWriteCheck.Rows rows = null;
			for (String node : NODES) {
				String recovery;
				try {
					recovery = psql(node, "postgres", "SELECT pg_is_in_recovery()");
				}
				catch (IllegalStateException ex) {
					continue;
				}
				if (!"f".equals(recovery)) {
					continue;
				}
				if (rows != null) {
					throw new IllegalStateException("Two primaries: " + rows.primary() + " and " + node);
				}
				Map<String, Integer> markers = new HashMap<>();
				String found = psql(node, "profiles",
						"SELECT biography FROM users WHERE biography LIKE '" + markerPrefix + "%'");
				for (String marker : found.lines().filter((line) -> !line.isEmpty()).toList()) {
					markers.merge(marker, 1, Integer::sum);
				}
				rows = new LostWriteCheck.Rows(node, markers,
						Long.parseLong(psql(node, "profiles", "SELECT count(*) FROM users")));
			}
			if (rows == null) {
				throw new IllegalStateException("No primary answers after the failover");
			}
			return rows;
		}

	}

	/** One query through psql in the node's container, over its trusted Unix socket. */
	private static String psql(String node, String database, String sql) throws Exception {
		Result result = compose(Duration.ofSeconds(60), "exec", "-T", node, "psql", "-U", "postgres", "-d", database,
				"-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql);
		if (result.exitCode() != 0) {
			throw new IllegalStateException(node + ": " + result.output());
		}
		return result.stdout().strip();
	}

	private static Result compose(Duration timeout, String... arguments) throws Exception {
		List<String> command = new ArrayList<>(List.of("docker", "compose", "-p", PROJECT, "-f", "docker-compose.yml"));
		if (Files.exists(OVERRIDE)) {
			command.addAll(List.of("-f", OVERRIDE.toString()));
		}
		command.addAll(List.of(arguments));
		return run(timeout, command);
	}

	private static Result exec(Duration timeout, String... command) throws Exception {
		return run(timeout, List.of(command));
	}

	/**
	 * A command with the settings of this project: its own ports, subnet and failover
	 * file; the images of the environment (docker/local-images.env, where exported).
	 */
	private static Result run(Duration timeout, List<String> command) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().put("APP_PORT", "0");
		builder.environment().put("MANAGEMENT_PORT", "0");
		builder.environment()
			.put("NETWORK_SUBNET", System.getProperty("it.compose.failover-subnet", "172.28.202.0/24"));
		builder.environment().put("FAILOVER_FILE", OVERRIDE.toString());
		// Every writer reaches the service through Docker's proxy, from one address.
		builder.environment().put("REGISTRATIONS_PER_ADDRESS", "0");
		Path out = Files.createTempFile("compose-", ".out");
		Path err = Files.createTempFile("compose-", ".err");
		try {
			Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
			boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (!ended) {
				process.destroyForcibly().waitFor();
			}
			Result result = new Result(ended ? process.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
					Files.readString(err, StandardCharsets.UTF_8));
			if (!ended) {
				throw new IllegalStateException("Timed out after " + timeout + ": " + command + "\n" + result.output());
			}
			return result;
		}
		finally {
			Files.deleteIfExists(out);
			Files.deleteIfExists(err);
		}
	}

	/**
	 * How a command ended.
	 *
	 * @param exitCode its exit status
	 * @param stdout what it printed
	 * @param stderr what it logged
	 */
	private record Result(int exitCode, String stdout, String stderr) {

		String output() {
			return this.stdout + this.stderr;
		}

	}

}
