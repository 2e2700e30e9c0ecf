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
 * The growing delays per account and client, the account's ceiling and the per-address
 * limit of {@code POST /login}, on a clock the test moves: 3 free failures per account
 * and client, then 1 s doubling up to 8 s; 6 per account from all clients; 100 attempts
 * per address; 15-minute windows.
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
		for (int i = 0; i < 39; i++) {
			assertThat(attempt(this.account)).isBetween(1L, 2L);
			this.clock.advance(Duration.ofMillis(50));
		}
		this.clock.advance(Duration.ofMillis(50));
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
	void accountsWaitApartAndTheirRefusalsCountTowardsTheClientsLimit() {
		failFreely(this.account);
		for (int i = 0; i < 10; i++) {
			assertThat(attempt(this.account)).isPositive();
		}
		// 3 failures and 10 refusals of the client's 100 are used.
		for (int i = 0; i < 87; i++) {
			assertThat(attempt(UUID.randomUUID())).as("another account, attempt %d", i + 1).isZero();
		}
		assertThat(attempt(UUID.randomUUID())).as("the client's own limit").isEqualTo(15 * 60);
	}

	@Test
	void oneClientsFailuresDoNotDelayAnotherClientOnTheSameAccount() {
		failFreely(this.account);
		assertThat(attempt(this.account)).as("the first client waits").isEqualTo(1);
		assertThat(attempt(this.throttle, this.account, "198.51.100.7")).as("another client does not").isZero();
	}

	@Test
	void pastTheAccountsCeilingEveryClientWaits() {
		failFreely(this.account);
		failFreely(this.account, "198.51.100.7");
		// 6 failures of the account, from two clients: a third client's first attempt
		// waits.
		assertThat(attempt(this.throttle, this.account, "198.51.100.8")).isEqualTo(1);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(attempt(this.throttle, this.account, "198.51.100.8")).isZero();
		assertThat(attempt(this.throttle, this.account, "198.51.100.9")).isEqualTo(2);
	}

	/**
	 * Issue 35: one attacker who fails at every opening for ten minutes, whether it
	 * knocks all the time or waits exactly as told, does not keep the owner out: the
	 * owner, on another client, gets in at the first attempt, every minute.
	 */
	@Test
	void anAttackerFailingAtEveryOpeningForTenMinutesDoesNotKeepTheOwnerOut() {
		for (boolean knocks : List.of(true, false)) {
			// As the defaults have it, an account's ceiling above what one client may
			// try.
			LoginThrottle throttle = new LoginThrottle(new ThrottleProperties(3, 30, 20, Duration.ofMinutes(15),
					Duration.ofSeconds(1), Duration.ofSeconds(8), 20, Duration.ofHours(1), 1000, 2, 2), this.clock,
					this.meters);
			String attacker = knocks ? "203.0.113.1" : "203.0.113.2";
			long end = this.clock.millis() + Duration.ofMinutes(10).toMillis();
			long nextOwnerTry = this.clock.millis() + Duration.ofMinutes(1).toMillis();
			long nextAttack = this.clock.millis();
			int ownerLogins = 0;
			while (this.clock.millis() < end) {
				if (knocks || this.clock.millis() >= nextAttack) {
					nextAttack = this.clock.millis() + attempt(throttle, this.account, attacker) * 1000;
				}
				if (this.clock.millis() >= nextOwnerTry) {
					long ownerWait = attempt(throttle, this.account, "192.0.2.200");
					assertThat(ownerWait).as("the owner at %s (attacker knocks: %s)", this.clock.instant(), knocks)
						.isZero();
					throttle.succeeded(this.account, "192.0.2.200");
					ownerLogins++;
					nextOwnerTry += Duration.ofMinutes(1).toMillis();
				}
				this.clock.advance(Duration.ofMillis(250));
			}
			assertThat(ownerLogins).isEqualTo(9);
		}
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

	@Test
	void aDeviceOfTheAccountIsCountedApartFromEveryoneElsesFailures() {
		// Failures from many addresses take the account past its ceiling: every client
		// without a device cookie waits.
		for (int i = 0; i < 6; i++) {
			assertThat(attempt(this.throttle, this.account, "192.0.2." + (10 + i))).isZero();
		}
		assertThat(attempt(this.throttle, this.account, "192.0.2.20")).as("past the ceiling").isEqualTo(1);
		// The owner's device goes ahead, and has free failures and delays of its own.
		for (int i = 0; i < 3; i++) {
			assertThat(deviceAttempt("owner-device")).as("device failure %d", i + 1).isZero();
		}
		assertThat(deviceAttempt("owner-device")).isEqualTo(1);
		assertThat(deviceAttempt("another-device")).as("another device of the account").isZero();
		// A success forgets the device's failures and the account's.
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(deviceAttempt("owner-device")).isZero();
		this.throttle.succeededDevice(this.account, "owner-device");
		assertThat(deviceAttempt("owner-device")).isZero();
		assertThat(attempt(this.throttle, this.account, "192.0.2.21")).as("the ceiling starts afresh").isZero();
		// An attempt not made gives its place back.
		this.throttle.abandonedDevice("owner-device");
		assertThat(deviceAttempt("owner-device")).isZero();
	}

	private long deviceAttempt(String device) {
		TooManyAttemptsException refused = catchThrowableOfType(TooManyAttemptsException.class,
				() -> this.throttle.acquireDevice(device));
		return (refused != null) ? refused.retryAfterSeconds() : 0;
	}

	private void failFreely(UUID id) {
		failFreely(id, ADDRESS);
	}

	private void failFreely(UUID id, String address) {
		for (int i = 0; i < 3; i++) {
			assertThat(attempt(this.throttle, id, address)).as("free failure %d", i + 1).isZero();
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
		return new ThrottleProperties(3, 6, 100, Duration.ofMinutes(15), accountDelay, maxAccountDelay, 20,
				Duration.ofHours(1), maxTracked, 2, 2);
	}

}
