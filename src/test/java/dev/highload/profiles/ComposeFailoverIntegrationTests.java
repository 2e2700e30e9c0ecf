package dev.highload.profiles;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compose deployment's failover, as a user runs it: the lost-write set check
 * ({@link LostWriteCheck}) sends registrations through the compose service while the
 * primary's container is killed ({@code docker compose kill}, SIGKILL) right after a
 * replication stall, then {@code docker/failover.sh} fences it, promotes the freshest
 * standby, re-points the other and clones the old primary again; the writers carry on,
 * and every marker is compared with the rows on the new primary.
 * <p>
 * It drives the {@code docker compose} CLI itself (a project of its own, ports of its
 * own, subnets of its own: {@code -Dit.compose.failover-network-prefix},
 * {@code -Dit.compose.failover-db-subnet}, {@code -Dit.compose.failover-admin-subnet};
 * defaults 172.28.202, 172.28.212.0/24 and 172.28.222.0/24), since the failover
 * re-creates containers under compose's control. Needs Docker ({@link RequiresDocker}).
 * CI runs it small; {@code -Dlost-write.acknowledged} and {@code -Dlost-write.writers}
 * set the size, as for {@link LostWriteIntegrationTests}.
 */
@RequiresDocker
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ComposeFailoverIntegrationTests {

	private static final int ACKNOWLEDGED = Integer.getInteger("lost-write.acknowledged", 300);

	private static final int WRITERS = Integer.getInteger("lost-write.writers", 16);

	private static final Duration STALL = Duration.ofMillis(Long.getLong("lost-write.stall-ms", 2000));

	private static final String PROJECT = "profiles-failover-it";

	private static final List<String> NODES = List.of("primary", "replica1", "replica2");

	private static final Path WORK = Path.of("target/compose-failover").toAbsolutePath();

	private static final Path OVERRIDE = WORK.resolve("failover.yml");

	/**
	 * Its own ports, subnet and failover file; the images of the environment
	 * (docker/local-images.env, where exported). Every writer reaches the service from
	 * one address, the host's loopback: no registration limit.
	 */
	private static final ComposeProject PROJECT_CLI = new ComposeProject(PROJECT,
			List.of(Path.of("docker-compose.yml"), OVERRIDE),
			Map.of("APP_PORT", ComposeProject.freePort(), "MANAGEMENT_PORT", ComposeProject.freePort(),
					"NETWORK_PREFIX", System.getProperty("it.compose.failover-network-prefix", "172.28.202"),
					"DB_NETWORK_SUBNET", System.getProperty("it.compose.failover-db-subnet", "172.28.212.0/24"),
					"ADMIN_NETWORK_SUBNET", System.getProperty("it.compose.failover-admin-subnet", "172.28.222.0/24"),
					"FAILOVER_FILE", OVERRIDE.toString(), "REGISTRATIONS_PER_ADDRESS", "0", "SECRETS_DIR",
					WORK.resolve("secrets").toString()));

	private static boolean started;

	@BeforeAll
	static void up() throws Exception {
		Files.deleteIfExists(OVERRIDE);
		PROJECT_CLI.upAnew(Duration.ofMinutes(15), WORK);
		started = true;
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

		assertThat(report.acknowledgedInTotal()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isZero();
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.newPrimary()).isNotEqualTo("primary");
		LostWriteCheck.assertEachKeyMapsToOneUser(report, ACKNOWLEDGED);
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
		return PROJECT_CLI.hostAddress("APP_PORT").resolve("/user/register");
	}

	/** The deployment through the compose CLI and docker/failover.sh. */
	private record ComposeTarget(URI register) implements LostWriteCheck.Target {

		@Override
		public void stallReplication() throws Exception {
			String pids = psql("primary", "postgres", "SELECT string_agg(pid::text, ' ') FROM pg_stat_replication");
			assertThat(pids).as("walsenders on the primary").isNotBlank();
			// As postgres, the walsenders' owner (root in the container has no capability
			// to signal another user's process): bash's own kill, since the image need
			// not ship procps.
			ComposeProject.Result stop = compose(Duration.ofSeconds(30), "exec", "-T", "-u", "postgres", "primary",
					"bash", "-c", "kill -STOP " + pids);
			assertThat(stop.exitCode()).as(stop.output()).isZero();
		}

		@Override
		public void crashPrimary() throws Exception {
			ComposeProject.Result kill = compose(Duration.ofSeconds(60), "kill", "-s", "SIGKILL", "primary");
			assertThat(kill.exitCode()).as(kill.output()).isZero();
		}

		@Override
		public String failover() throws Exception {
			// Issue 59: no password on any command line while it runs.
			try (CommandLineWatch watch = CommandLineWatch
				.passwordsOf(Path.of(PROJECT_CLI.environment().get("SECRETS_DIR")), Set.of("psql"))) {
				ComposeProject.Result failover = PROJECT_CLI.run(Duration.ofMinutes(10),
						List.of("bash", "docker/failover.sh", "-p", PROJECT));
				assertThat(failover.exitCode()).as("docker/failover.sh:\n" + failover.output()).isZero();
				return failover.output();
			}
		}

		@Override
		public LostWriteCheck.Rows rows(String markerPrefix, String keyPrefix) throws Exception {
			return PROJECT_CLI.primaryRows(NODES, markerPrefix, keyPrefix);
		}

	}

	private static String psql(String node, String database, String sql) throws Exception {
		return PROJECT_CLI.psql(node, database, sql);
	}

	private static ComposeProject.Result compose(Duration timeout, String... arguments) throws Exception {
		return PROJECT_CLI.compose(timeout, arguments);
	}

}
