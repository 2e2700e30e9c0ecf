package dev.highload.profiles.auth;

import java.util.UUID;

import org.springframework.stereotype.Component;

/**
 * A password checked against an account's hash outside {@code POST /login}, counted as a
 * login attempt of that client on that account ({@link LoginThrottle}): a registration
 * sent again with its Idempotency-Key is answered by whether its password matches the
 * user's, so without this count it would be a way to guess passwords that the login
 * throttle never sees.
 */
@Component
public class PasswordChecks {

	private final PasswordHasher passwordHasher;

	private final LoginThrottle throttle;

	PasswordChecks(PasswordHasher passwordHasher, LoginThrottle throttle) {
		this.passwordHasher = passwordHasher;
		this.throttle = throttle;
	}

	/**
	 * @param work whose hashing pool checks it
	 * @param account the account whose hash it is
	 * @param remoteAddress the client's address, as the login throttle counts it
	 * @param password the password sent
	 * @param encodedHash the account's hash
	 * @return whether they match; a mismatch stays counted as a failed login
	 * @throws TooManyAttemptsException 429 when a login of that client to that account
	 * would be refused now; the password is then not checked
	 * @throws HashingOverloadedException when the hashing queue is full; nothing is
	 * counted
	 */
	public boolean matches(PasswordHasher.Work work, UUID account, String remoteAddress, String password,
			String encodedHash) {
		// No place among the logins' checks at once (LoginThrottle#checking): those share
		// the logins' hashing pool, and a client retrying its registrations after a
		// failover sends many at once.
		this.throttle.acquire(account, remoteAddress);
		boolean matches;
		try {
			matches = this.passwordHasher.matches(work, password, encodedHash);
		}
		catch (RuntimeException ex) {
			this.throttle.abandoned(account, remoteAddress);
			throw ex;
		}
		if (matches) {
			this.throttle.succeeded(account, remoteAddress);
		}
		return matches;
	}

}
