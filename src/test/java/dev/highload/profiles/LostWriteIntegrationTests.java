package dev.highload.profiles;

import java.nio.file.Path;
import java.time.Duration;

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
		// About 60 registrations a second fit on 2 cores (Argon2id): a generous limit.
		Duration timeLimit = Duration.ofSeconds(120 + ACKNOWLEDGED / 10);
		return new LostWriteCheck.Settings(synchronous, WRITERS, ACKNOWLEDGED / 2, ACKNOWLEDGED, STALL, timeLimit,
				Path.of("target/lost-write"));
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

	@Test
	void asynchronousReplicationLosesAcknowledgedWritesSoTheCheckCanFail() throws Exception {
		LostWriteCheck.Report report = LostWriteCheck.run(settings(false), BASE_DIR, PORTS);

		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isPositive();
		assertThat(report.unexpected()).as("present but never sent").isZero();
	}

}
