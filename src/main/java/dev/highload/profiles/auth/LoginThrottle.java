package dev.highload.profiles.auth;

import java.time.Clock;
import java.util.UUID;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * Brute-force protection for {@code POST /login}: failed logins per client address (a
 * hard limit per window: it stops one client) and per account (growing delays, never a
 * lockout: see {@link ThrottleProperties}). Every attempt is counted before its password
 * is checked (and taken back when it succeeds), so a refused attempt costs no hashing and
 * concurrent attempts cannot slip past a limit or a delay together.
 */
@Component
class LoginThrottle {

	private final AttemptLimiter accounts;

	private final AttemptLimiter addresses;

	private final Counter rejected;

	LoginThrottle(ThrottleProperties properties, Clock clock, MeterRegistry meterRegistry) {
		this.accounts = new AttemptLimiter(properties.loginFailuresPerAccount(), properties.loginWindow(),
				properties.accountDelay(), properties.maxAccountDelay(), properties.maxTracked(), clock);
		this.addresses = new AttemptLimiter(properties.loginFailuresPerAddress(), properties.loginWindow(),
				properties.maxTracked(), clock);
		this.rejected = Counter.builder("profiles.throttle.rejected")
			.description("Requests answered 429 because a client used up its attempts or an account must wait")
			.tag("operation", "login")
			.register(meterRegistry);
	}

	/**
	 * Counts an attempt for the account and the client.
	 * @param account the id tried
	 * @param remoteAddress the client's address ({@code getRemoteAddr()})
	 * @throws TooManyAttemptsException if the client has no attempts left or the account
	 * must still wait
	 */
	void acquire(UUID account, String remoteAddress) {
		String address = ClientAddress.key(remoteAddress);
		long wait = this.addresses.tryAcquire(address);
		if (wait == 0) {
			wait = this.accounts.tryAcquire(account.toString());
			if (wait != 0) {
				this.addresses.release(address);
			}
		}
		if (wait != 0) {
			this.rejected.increment();
			throw TooManyAttemptsException.logins(wait);
		}
	}

	/**
	 * The attempt succeeded: the account's failures are forgotten, and the client's count
	 * gets this attempt back.
	 */
	void succeeded(UUID account, String remoteAddress) {
		this.accounts.reset(account.toString());
		this.addresses.release(ClientAddress.key(remoteAddress));
	}

	/** The attempt was not made after all (the hashing queue was full). */
	void abandoned(UUID account, String remoteAddress) {
		this.accounts.release(account.toString());
		this.addresses.release(ClientAddress.key(remoteAddress));
	}

}
