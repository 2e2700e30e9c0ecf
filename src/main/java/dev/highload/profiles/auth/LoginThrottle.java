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
 * <p>
 * Correct passwords are no failures, so the counts alone let clients log in to an account
 * of their own as fast as the hashing allows. A login's password check therefore also
 * takes a place ({@link #checking}): at most
 * {@link ThrottleProperties#loginsAtOncePerAccount()} of one account's and
 * {@link ThrottleProperties#loginsAtOncePerClient()} of one client's checks wait for or
 * run in the hashing pool at once; one more is 429 at once, so no few clients fill the
 * queue that every login shares. A device's checks take the device's place alone.
 */
@Component
class LoginThrottle {

	private final AttemptLimiter pairs;

	private final AttemptLimiter accounts;

	private final AttemptLimiter addresses;

	private final AttemptLimiter devices;

	private final AttemptsAtOnce accountsChecking;

	private final AttemptsAtOnce clientsChecking;

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
		this.accountsChecking = new AttemptsAtOnce(properties.loginsAtOncePerAccount());
		this.clientsChecking = new AttemptsAtOnce(properties.loginsAtOncePerClient());
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

	/**
	 * Takes a place for a password check of a client on an account, before it is counted.
	 * @param account the id tried
	 * @param remoteAddress the client's address
	 * @return what ends the check: run it once the check is over, however it ended
	 * @throws TooManyAttemptsException (Retry-After 1 s) if the account or the client has
	 * as many checks running as it may
	 */
	Runnable checking(UUID account, String remoteAddress) {
		String id = account.toString();
		String client = ClientAddress.key(remoteAddress);
		if (!this.accountsChecking.tryEnter(id)) {
			throw refusedAtOnce();
		}
		if (!this.clientsChecking.tryEnter(client)) {
			this.accountsChecking.leave(id);
			throw refusedAtOnce();
		}
		return () -> {
			this.clientsChecking.leave(client);
			this.accountsChecking.leave(id);
		};
	}

	/**
	 * As {@link #checking(UUID, String)} for a client with the account's device cookie:
	 * the device's place alone, so that others' checks on the account never keep it out.
	 * @param device the cookie's device id
	 * @return what ends the check
	 * @throws TooManyAttemptsException if the device has as many checks running as it may
	 */
	Runnable checkingDevice(String device) {
		String client = "device " + device;
		if (!this.clientsChecking.tryEnter(client)) {
			throw refusedAtOnce();
		}
		return () -> this.clientsChecking.leave(client);
	}

	private TooManyAttemptsException refusedAtOnce() {
		this.rejected.increment();
		return TooManyAttemptsException.logins(1);
	}

	private static String pair(String account, String address) {
		return account + ' ' + address;
	}

}
