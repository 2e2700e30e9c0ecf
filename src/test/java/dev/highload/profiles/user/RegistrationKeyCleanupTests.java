package dev.highload.profiles.user;

import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.mockingDetails;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * The cleanup's runs, with the service mocked: batches while they come back full, a
 * failure that ends a run without escaping it, and the schedule.
 */
class RegistrationKeyCleanupTests {

	private final Registrations registrations = mock(Registrations.class);

	private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();

	private final RegistrationKeyCleanup cleanup = new RegistrationKeyCleanup(this.registrations,
			new RegistrationProperties(Duration.ofHours(24), Duration.ofMillis(20), 2), this.meterRegistry);

	@AfterEach
	void stop() {
		this.cleanup.destroy();
	}

	@Test
	void aRunRepeatsBatchesWhileTheyComeBackFull() {
		given(this.registrations.deleteExpiredKeys(2)).willReturn(2, 2, 1);
		assertThat(this.cleanup.deleteExpired()).isEqualTo(5);
		verify(this.registrations, times(3)).deleteExpiredKeys(2);
		assertThat(deleted()).isEqualTo(5);
	}

	@Test
	void aFailureEndsTheRunWithoutEscapingIt() {
		given(this.registrations.deleteExpiredKeys(2)).willReturn(2)
			.willThrow(new DataAccessResourceFailureException("primary down"));
		assertThat(this.cleanup.deleteExpired()).isEqualTo(2);
		verify(this.registrations, times(2)).deleteExpiredKeys(2);
		assertThat(deleted()).isEqualTo(2);
	}

	@Test
	void runsAreScheduledEveryIntervalOnceTheServiceIsReady() {
		given(this.registrations.deleteExpiredKeys(2)).willThrow(new DataAccessResourceFailureException("down"))
			.willReturn(0);
		this.cleanup.schedule();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> mockingDetails(this.registrations).getInvocations().size() >= 3);
		// A failed run did not end the schedule.
		verify(this.registrations, atLeast(3)).deleteExpiredKeys(2);
	}

	private double deleted() {
		return this.meterRegistry.get("profiles.registrations.keys.deleted").counter().count();
	}

}
