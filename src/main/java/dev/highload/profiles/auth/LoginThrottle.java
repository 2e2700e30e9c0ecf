package dev.highload.profiles.auth;

import java.time.Clock;
import java.util.UUID;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * Brute-force protection for {@code POST /login} (see {@link ThrottleProperties}): a hard
 * limit of failed logins per client address (it stops one client), growing delays per
 * account and client (one client's failures slow that client alone on that account), and
 * the same delays per account past a higher ceiling (against guessing from many clients).
 * Never a lockout. Every attempt is counted before its password is checked (and taken
 * back when it succeeds), so a refused attempt costs no hashing and concurrent attempts
 * cannot slip past a limit or a delay together; an attempt refused for a delay still
 * counts towards its client's limit, so knocking is not free.
 * <p>
 * A client with a device cookie for the account ({@link DeviceCookies}) is counted apart:
 * its failures against that cookie alone (the same free failures and delays as a client's
 * on an account), never against its address or the account's ceiling, and others'
 * failures do not delay it.
 */
@Component
class LoginThrottle {

	private final AttemptLimiter pairs;

	private final AttemptLimiter accounts;

	private final AttemptLimiter addresses;

	private final AttemptLimiter devices;

	private final Counter rejected;

	LoginThrottle(ThrottleProperties properties, Clock clock, MeterRegistry meterRegistry) {
		this.pairs = new AttemptLimiter(properties.loginFailuresPerAccountAndAddress(), properties.loginWindow(),
				properties.accountDelay(), properties.maxAccountDelay(), properties.maxTracked(), clock);
		this.accounts = new AttemptLimiter(properties.loginFailuresPerAccount(), properties.loginWindow(),
				properties.accountDelay(), properties.maxAccountDelay(), properties.maxTracked(), clock);
		this.addresses = new AttemptLimiter(properties.loginFailuresPerAddress(), properties.loginWindow(),
				properties.maxTracked(), clock);
		this.devices = new AttemptLimiter(properties.loginFailuresPerAccountAndAddress(), properties.loginWindow(),
				properties.accountDelay(), properties.maxAccountDelay(), properties.maxTracked(), clock);
		this.rejected = Counter.builder("profiles.throttle.rejected")
			.description("Requests answered 429 because a client used up its attempts or an account must wait")
			.tag("operation", "login")
			.register(meterRegistry);
	}

	/**
	 * Counts an attempt for the client, the account from that client, and the account.
	 * @param account the id tried
	 * @param remoteAddress the client's address ({@code getRemoteAddr()})
	 * @throws TooManyAttemptsException if the client has no attempts left, or must still
	 * wait on this account, or the account must
	 */
	void acquire(UUID account, String remoteAddress) {
		String address = ClientAddress.key(remoteAddress);
		String id = account.toString();
		String pair = pair(id, address);
		long wait = this.addresses.tryAcquire(address);
		if (wait == 0) {
			wait = this.pairs.tryAcquire(pair);
			if (wait == 0) {
				wait = this.accounts.tryAcquire(id);
				if (wait != 0) {
					this.pairs.release(pair);
				}
			}
			// A refusal keeps its place in the client's count.
		}
		if (wait != 0) {
			this.rejected.increment();
			throw TooManyAttemptsException.logins(wait);
		}
	}

	/**
	 * The attempt succeeded: the account's failures are forgotten, from this client and
	 * from all, and the client's count gets this attempt back.
	 */
	void succeeded(UUID account, String remoteAddress) {
		String address = ClientAddress.key(remoteAddress);
		this.pairs.reset(pair(account.toString(), address));
		this.accounts.reset(account.toString());
		this.addresses.release(address);
	}

	/** The attempt was not made after all (the hashing queue was full). */
	void abandoned(UUID account, String remoteAddress) {
		String address = ClientAddress.key(remoteAddress);
		this.pairs.release(pair(account.toString(), address));
		this.accounts.release(account.toString());
		this.addresses.release(address);
	}

	/**
	 * Counts an attempt of a client that holds a device cookie for the account.
	 * @param device the cookie's device id
	 * @throws TooManyAttemptsException if that device must still wait
	 */
	void acquireDevice(String device) {
		long wait = this.devices.tryAcquire(device);
		if (wait != 0) {
			this.rejected.increment();
			throw TooManyAttemptsException.logins(wait);
		}
	}

	/**
	 * The device's attempt succeeded: its failures and the account's are forgotten.
	 */
	void succeededDevice(UUID account, String device) {
		this.devices.reset(device);
		this.accounts.reset(account.toString());
	}

	/** The device's attempt was not made after all (the hashing queue was full). */
	void abandonedDevice(String device) {
		this.devices.release(device);
	}

	private static String pair(String account, String address) {
		return account + ' ' + address;
	}

}
