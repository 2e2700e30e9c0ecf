package dev.highload.profiles.auth;

import java.time.Duration;
import java.util.List;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PasswordHasherTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final PasswordHasher hasher = new PasswordHasher(
			new AuthProperties(List.of(), Duration.ofHours(1), 1, 4, Duration.ofDays(30)), this.registry);

	@Test
	void aHashVerifiesItsPasswordAndNoOther() {
		String encoded = this.hasher.hash("a password");
		assertThat(this.hasher.matches(PasswordHasher.Work.LOGIN, "a password", encoded)).isTrue();
		assertThat(this.hasher.matches(PasswordHasher.Work.LOGIN, "another password", encoded)).isFalse();
		assertThat(this.registry.get("profiles.password.hash").tag("operation", "hash").timer().count()).isEqualTo(1);
		assertThat(this.registry.get("profiles.password.hash").tag("operation", "verify").timer().count()).isEqualTo(2);
	}

	@Test
	void theWarmUpsRoundHashesAndChecksOnBothPoolsWithoutCountingAsRequests() {
		assertThat(this.hasher.exercise()).isPositive();
		assertThat(this.registry.get("profiles.password.hash").timers())
			.allSatisfy((timer) -> assertThat(timer.count()).as(timer.getId().toString()).isZero());
		// Each pool starts its thread for its first task; its count of completed tasks
		// would be read before the pool's worker updates it.
		assertThat(this.registry.get("executor.pool.size").tag("work", "registration").gauge().value()).isEqualTo(1);
		assertThat(this.registry.get("executor.pool.size").tag("work", "login").gauge().value()).isEqualTo(1);
	}

}
