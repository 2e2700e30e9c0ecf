package dev.highload.profiles.auth;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class AttemptLimiterTests {

	private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	private final AttemptLimiter limiter = new AttemptLimiter(3, Duration.ofMinutes(15), 100, this.clock);

	@Test
	void theLimitIsReachedThenTheKeyWaitsForTheEndOfItsWindow() {
		for (int i = 0; i < 3; i++) {
			assertThat(this.limiter.tryAcquire("a")).as("attempt %d", i + 1).isZero();
		}
		assertThat(this.limiter.tryAcquire("a")).isEqualTo(15 * 60);
		this.clock.advance(Duration.ofMinutes(10).plusMillis(1));
		// The rest of the window, rounded up to a whole second.
		assertThat(this.limiter.tryAcquire("a")).isEqualTo(5 * 60);
		this.clock.advance(Duration.ofMinutes(5).minusMillis(2));
		assertThat(this.limiter.tryAcquire("a")).isEqualTo(1);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.limiter.tryAcquire("a")).isZero();
	}

	@Test
	void refusedAttemptsDoNotExtendTheWindow() {
		for (int i = 0; i < 3; i++) {
			this.limiter.tryAcquire("a");
		}
		for (int i = 0; i < 100; i++) {
			assertThat(this.limiter.tryAcquire("a")).isPositive();
		}
		this.clock.advance(Duration.ofMinutes(15));
		assertThat(this.limiter.tryAcquire("a")).isZero();
	}

	@Test
	void keysAreCountedApart() {
		for (int i = 0; i < 3; i++) {
			this.limiter.tryAcquire("a");
		}
		assertThat(this.limiter.tryAcquire("a")).isPositive();
		assertThat(this.limiter.tryAcquire("b")).isZero();
	}

	@Test
	void releaseGivesBackOneAttemptAndResetForgetsTheKey() {
		for (int i = 0; i < 3; i++) {
			this.limiter.tryAcquire("a");
		}
		this.limiter.release("a");
		assertThat(this.limiter.tryAcquire("a")).isZero();
		assertThat(this.limiter.tryAcquire("a")).isPositive();
		this.limiter.reset("a");
		assertThat(this.limiter.tryAcquire("a")).isZero();
		// Releasing what was never counted does not create credit.
		this.limiter.release("b");
		this.limiter.release("b");
		for (int i = 0; i < 3; i++) {
			assertThat(this.limiter.tryAcquire("b")).isZero();
		}
		assertThat(this.limiter.tryAcquire("b")).isPositive();
	}

	@Test
	void memoryStaysBoundedWhateverKeysArrive() {
		for (int i = 0; i < 10_000; i++) {
			this.limiter.tryAcquire("random-" + i);
		}
		assertThat(this.limiter.size()).isEqualTo(100);
	}

	@Test
	void theLeastRecentlySeenKeyIsForgottenFirst() {
		AttemptLimiter small = new AttemptLimiter(1, Duration.ofMinutes(15), 2, this.clock);
		small.tryAcquire("old");
		small.tryAcquire("busy");
		assertThat(small.tryAcquire("old")).isPositive();
		small.tryAcquire("new");
		// "busy" was seen before "old" was tried again, so "busy" went.
		assertThat(small.tryAcquire("old")).isPositive();
		assertThat(small.tryAcquire("busy")).isZero();
	}

	@Test
	void aLimitOfZeroLetsEverythingThroughAndKeepsNothing() {
		AttemptLimiter off = new AttemptLimiter(0, Duration.ofMinutes(1), 10, this.clock);
		for (int i = 0; i < 1000; i++) {
			assertThat(off.tryAcquire("a")).isZero();
		}
		assertThat(off.size()).isZero();
	}

	@Test
	void withDelaysAKeyPastTheLimitWaitsADoublingDelayAfterItsLastAttempt() {
		AttemptLimiter delays = new AttemptLimiter(2, Duration.ofMinutes(15), Duration.ofSeconds(1),
				Duration.ofSeconds(3), 100, this.clock);
		assertThat(delays.tryAcquire("a")).isZero();
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(delays.tryAcquire("a")).isZero();
		// Measured from the last attempt, not the first.
		this.clock.advance(Duration.ofMillis(500));
		assertThat(delays.tryAcquire("a")).isEqualTo(1);
		this.clock.advance(Duration.ofMillis(500));
		assertThat(delays.tryAcquire("a")).isZero();
		assertThat(delays.tryAcquire("a")).isEqualTo(2);
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(delays.tryAcquire("a")).isZero();
		// 4 s, capped at 3 s.
		assertThat(delays.tryAcquire("a")).isEqualTo(3);
		this.clock.advance(Duration.ofSeconds(3));
		assertThat(delays.tryAcquire("a")).isZero();
		assertThat(delays.tryAcquire("a")).isEqualTo(3);
		assertThat(delays.tryAcquire("b")).isZero();
	}

	@Test
	void aDelayNeverOutlastsTheWindow() {
		AttemptLimiter delays = new AttemptLimiter(1, Duration.ofSeconds(10), Duration.ofMinutes(1),
				Duration.ofMinutes(1), 100, this.clock);
		assertThat(delays.tryAcquire("a")).isZero();
		this.clock.advance(Duration.ofSeconds(4));
		assertThat(delays.tryAcquire("a")).isEqualTo(6);
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(delays.tryAcquire("a")).isZero();
	}

	@Test
	void withDelaysMemoryStaysBoundedToo() {
		AttemptLimiter delays = new AttemptLimiter(1, Duration.ofMinutes(15), Duration.ofSeconds(1),
				Duration.ofSeconds(30), 100, this.clock);
		for (int i = 0; i < 10_000; i++) {
			delays.tryAcquire("random-" + i);
			delays.tryAcquire("random-" + i);
		}
		assertThat(delays.size()).isEqualTo(100);
	}

	@Test
	void nonsenseSettingsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new AttemptLimiter(1, Duration.ofMinutes(1),
				Duration.ZERO, Duration.ofSeconds(1), 10, this.clock));
		assertThatIllegalArgumentException().isThrownBy(() -> new AttemptLimiter(1, Duration.ofMinutes(1),
				Duration.ofSeconds(2), Duration.ofSeconds(1), 10, this.clock));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AttemptLimiter(-1, Duration.ofMinutes(1), 10, this.clock));
		assertThatIllegalArgumentException().isThrownBy(() -> new AttemptLimiter(1, Duration.ZERO, 10, this.clock));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AttemptLimiter(1, Duration.ofMinutes(1), 0, this.clock));
	}

	@Test
	void clientAddressesAreKeyedByIpv4AddressAndIpv6Network() {
		assertThat(ClientAddress.key("192.0.2.7")).isEqualTo("192.0.2.7");
		assertThat(ClientAddress.key("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
		assertThat(ClientAddress.key("2001:db8:1:2::1")).isEqualTo(ClientAddress.key("2001:db8:1:2:ffff::9"));
		assertThat(ClientAddress.key("2001:db8:1:3::1")).isNotEqualTo(ClientAddress.key("2001:db8:1:2::1"));
		assertThat(ClientAddress.key("0:0:0:0:0:0:0:1")).isEqualTo("0:0:0:0:0:0:0:0/64");
		assertThat(ClientAddress.key(null)).isEqualTo("unknown");
	}

}
