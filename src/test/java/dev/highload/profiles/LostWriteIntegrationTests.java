package dev.highload.profiles;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lost-write set check ({@link LostWriteCheck}) on a cluster of its own: it kills a
 * primary, so it must not use the shared test cluster. CI runs it small; the full size is
 * {@code .ci/lost-write.py}, which sets {@code -Dlost-write.acknowledged} (writes across
 * the whole run, half of them before the crash) and {@code -Dlost-write.writers}.
 */
class LostWriteIntegrationTests {

	private static final int ACKNOWLEDGED = Integer.getInteger("lost-write.acknowledged", 300);

	private static final int WRITERS = Integer.getInteger("lost-write.writers", 16);

	private static final Duration STALL = Duration.ofMillis(Long.getLong("lost-write.stall-ms", 2000));

	private static final Path BASE_DIR = Path.of("target/lost-write-cluster");

	private static final int[] PORTS = { 29432, 29433, 29434 };

	private static LostWriteCheck.Settings settings(boolean synchronous) {
		return settings(synchronous, Path.of("target/lost-write"));
	}

	private static LostWriteCheck.Settings settings(boolean synchronous, Path output) {
		// About 60 registrations a second fit on 2 cores (Argon2id): a generous limit.
		Duration timeLimit = Duration.ofSeconds(120 + ACKNOWLEDGED / 10);
		return new LostWriteCheck.Settings(synchronous, WRITERS, ACKNOWLEDGED / 2, ACKNOWLEDGED, STALL, timeLimit,
				output);
	}

	@Test
	void synchronousReplicationLosesNoAcknowledgedWriteAndRetriesWithKeysRegisterEachUserOnce() throws Exception {
		LostWriteCheck.Report report = LostWriteCheck.run(settings(true), BASE_DIR, PORTS);

		assertThat(report.acknowledgedInTotal()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isZero();
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.newPrimary()).isNotEqualTo("primary");
		LostWriteCheck.assertEachKeyMapsToOneUser(report, ACKNOWLEDGED);
	}

	/**
	 * The same run with the service as it runs on Kubernetes: its pools behind stand-ins
	 * for CloudNativePG's Services ({@link ServiceStandIn}), the primary's following the
	 * promotion, the replicas' balancing each new connection over both, reads routed
	 * {@code balanced}.
	 */
	@Test
	void behindServiceStandInsBalancedRoutingLosesNoAcknowledgedWriteAndRegistersEachKeyOnce() throws Exception {
		List<String> nodes = Arrays.stream(PORTS).mapToObj((port) -> "127.0.0.1:" + port).toList();
		// The embedded cluster's runtime role, as DatabaseProperties' defaults name it.
		try (ServiceStandIn rw = new ServiceStandIn("rw",
				ServiceStandIn.primaryOf(nodes, "profiles", "profiles", "profiles"));
				ServiceStandIn ro = new ServiceStandIn("ro", ServiceStandIn
					.roundRobin(nodes.subList(1, 3).stream().map(ServiceStandIn::address).toList()))) {
			LostWriteCheck.Report report = LostWriteCheck.run(settings(true, Path.of("target/lost-write-balanced")),
					BASE_DIR, PORTS, List.of("--app.db.nodes=" + rw.address(), "--app.db.replicas=" + ro.address(),
							"--app.db.routing=balanced"));

			assertThat(report.acknowledgedInTotal()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
			assertThat(report.acknowledgedAfterFailover()).isPositive();
			assertThat(report.lost()).as("acknowledged but missing").isZero();
			assertThat(report.unexpected()).as("present but never sent").isZero();
			assertThat(report.newPrimary()).isNotEqualTo("primary");
			LostWriteCheck.assertEachKeyMapsToOneUser(report, ACKNOWLEDGED);
			assertThat(rw.acceptedByBackend())
				.as("the -rw stand-in's connections by node port: it followed the promotion")
				.hasSizeGreaterThanOrEqualTo(2);
		}
	}

	@Test
	void asynchronousReplicationLosesAcknowledgedWritesSoTheCheckCanFail() throws Exception {
		LostWriteCheck.Report report = LostWriteCheck.run(settings(false), BASE_DIR, PORTS);

		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isPositive();
		assertThat(report.unexpected()).as("present but never sent").isZero();
	}

}
