package dev.highload.profiles.auth;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The per-account growing delays and the per-address limit of {@code POST /login}, on a
 * clock the test moves: 3 free failures per account, then 1 s doubling up to 8 s; 20
 * failures per address; 15-minute windows.
 */
class LoginThrottleTests {

	private static final String ADDRESS = "192.0.2.1";

	private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final LoginThrottle throttle = throttle(1000);

	private final UUID account = UUID.randomUUID();

	@Test
	void theFirstFailuresOfAnAccountCostNothingThenItWaitsOneDelay() {
		for (int i = 0; i < 3; i++) {
			assertThat(attempt(this.account)).as("failure %d", i + 1).isZero();
		}
		assertThat(attempt(this.account)).isEqualTo(1);
		this.clock.advance(Duration.ofMillis(999));
		assertThat(attempt(this.account)).isEqualTo(1);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(attempt(this.account)).isZero();
		assertThat(this.meters.get("profiles.throttle.rejected").tag("operation", "login").counter().count())
			.isEqualTo(2);
	}

	@Test
	void eachFurtherFailureDoublesTheDelayUpToTheCap() {
		failFreely(this.account);
		List<Long> delays = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			long delay = attempt(this.account);
			delays.add(delay);
			this.clock.advance(Duration.ofSeconds(delay).minusMillis(1));
			assertThat(attempt(this.account)).as("1 ms before the end of delay %d", i + 1).isEqualTo(1);
			this.clock.advance(Duration.ofMillis(1));
			assertThat(attempt(this.account)).as("at the end of delay %d", i + 1).isZero();
		}
		assertThat(delays).containsExactly(1L, 2L, 4L, 8L, 8L, 8L, 8L);
	}

	@Test
	void attemptsInsideTheDelayDoNotExtendIt() {
		failFreely(this.account);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(attempt(this.account)).isZero();
		// Now 2 s from that failure: knocking all through the delay changes nothing.
		for (int i = 0; i < 199; i++) {
			assertThat(attempt(this.account)).isBetween(1L, 2L);
			this.clock.advance(Duration.ofMillis(10));
		}
		this.clock.advance(Duration.ofMillis(10));
		assertThat(attempt(this.account)).isZero();
	}

	@Test
	void aSuccessfulLoginClearsTheAccountsFailures() {
		failFreely(this.account);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(attempt(this.account)).isZero();
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(attempt(this.account)).isZero();
		this.throttle.succeeded(this.account, ADDRESS);
		failFreely(this.account);
		assertThat(attempt(this.account)).as("the first delay again").isEqualTo(1);
	}

	@Test
	void theAccountStartsAfreshWhenItsWindowEnds() {
		failFreely(this.account);
		for (int i = 0; i < 4; i++) {
			this.clock.advance(Duration.ofSeconds(attempt(this.account)));
			assertThat(attempt(this.account)).isZero();
		}
		assertThat(attempt(this.account)).isEqualTo(8);
		this.clock.advance(Duration.ofMinutes(15));
		failFreely(this.account);
	}

	@Test
	void accountsWaitApartAndTheirRefusalsCostTheClientNothing() {
		failFreely(this.account);
		for (int i = 0; i < 100; i++) {
			assertThat(attempt(this.account)).isPositive();
		}
		// 3 of the client's 20 failures are used; the 100 refusals took none.
		for (int i = 0; i < 17; i++) {
			assertThat(attempt(UUID.randomUUID())).as("another account, attempt %d", i + 1).isZero();
		}
		assertThat(attempt(UUID.randomUUID())).as("the client's own limit").isEqualTo(15 * 60);
	}

	@Test
	void anAbandonedAttemptGivesItsFailureBack() {
		failFreely(this.account);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(attempt(this.account)).isZero();
		this.throttle.abandoned(this.account, ADDRESS);
		this.clock.advance(Duration.ofSeconds(1));
		// Still the first delay (1 s), not the second (2 s).
		assertThat(attempt(this.account)).isZero();
		assertThat(attempt(this.account)).isEqualTo(2);
	}

	@Test
	void theLeastRecentlySeenAccountsAreForgottenSoMemoryStaysBounded() {
		LoginThrottle small = throttle(2);
		for (int i = 0; i < 3; i++) {
			assertThat(attempt(small, this.account, "192.0.2.2")).isZero();
		}
		assertThat(attempt(small, this.account, "192.0.2.2")).isEqualTo(1);
		// Two other accounts, from other clients, push it out: it starts afresh.
		assertThat(attempt(small, UUID.randomUUID(), "192.0.2.3")).isZero();
		assertThat(attempt(small, UUID.randomUUID(), "192.0.2.4")).isZero();
		assertThat(attempt(small, this.account, "192.0.2.2")).isZero();
	}

	@Test
	void nonsenseDelaysAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> properties(Duration.ZERO, Duration.ofSeconds(1), 10));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> properties(Duration.ofSeconds(2), Duration.ofSeconds(1), 10));
	}

	private void failFreely(UUID id) {
		for (int i = 0; i < 3; i++) {
			assertThat(attempt(id)).as("free failure %d", i + 1).isZero();
		}
	}

	private long attempt(UUID id) {
		return attempt(this.throttle, id, ADDRESS);
	}

	/** 0 if the attempt goes ahead (and then fails), else the seconds it must wait. */
	private static long attempt(LoginThrottle throttle, UUID id, String address) {
		TooManyAttemptsException refused = catchThrowableOfType(TooManyAttemptsException.class,
				() -> throttle.acquire(id, address));
		if (refused == null) {
			return 0;
		}
		assertThat(refused.attempts()).isEqualTo(TooManyAttemptsException.Attempts.LOGINS);
		return refused.retryAfterSeconds();
	}

	private LoginThrottle throttle(int maxTracked) {
		return new LoginThrottle(properties(Duration.ofSeconds(1), Duration.ofSeconds(8), maxTracked), this.clock,
				this.meters);
	}

	private static ThrottleProperties properties(Duration accountDelay, Duration maxAccountDelay, int maxTracked) {
		return new ThrottleProperties(3, 20, Duration.ofMinutes(15), accountDelay, maxAccountDelay, 20,
				Duration.ofHours(1), maxTracked);
	}

}
