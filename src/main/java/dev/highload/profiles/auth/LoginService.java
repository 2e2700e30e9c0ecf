package dev.highload.profiles.auth;

import java.util.Optional;
import java.util.UUID;

import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.routing.WalPosition;

import org.springframework.stereotype.Service;

/**
 * Checks an id and password and issues a token. An unknown id is checked against a dummy
 * hash of the same cost, so it takes as long as a wrong password and gets the same
 * answer; it is throttled the same way too ({@link LoginThrottle}).
 */
@Service
class LoginService {

	private final CredentialStore credentials;

	private final PasswordHasher passwordHasher;

	private final TokenService tokens;

	private final LoginThrottle throttle;

	private final DeviceCookies devices;

	private final String dummyHash;

	LoginService(CredentialStore credentials, PasswordHasher passwordHasher, TokenService tokens,
			LoginThrottle throttle, DeviceCookies devices) {
		this.credentials = credentials;
		this.passwordHasher = passwordHasher;
		this.tokens = tokens;
		this.throttle = throttle;
		this.devices = devices;
		this.dummyHash = passwordHasher.hash(UUID.randomUUID().toString());
	}

	/**
	 * @param request the id and password
	 * @param remoteAddress the client's address, for throttling
	 * @param deviceCookie the client's device cookie, or {@code null}: one made for this
	 * account puts the attempt on that device's count instead of the address's and the
	 * account's
	 * @param atLeast the client's consistency token: a user who has just registered is
	 * found with it wherever the read goes
	 * @return a token for the user and a new device cookie, at the positions of the read
	 * of the hash
	 * @throws AuthenticationFailedException 401 for an unknown id or a wrong password
	 * @throws TooManyAttemptsException 429 when the client has failed too often, the
	 * account's delay has not passed, or the account or the client has as many password
	 * checks running as it may; the password is then not checked at all
	 */
	Positioned<LoggedIn> login(LoginRequest request, String remoteAddress, String deviceCookie, WalPosition atLeast) {
		Optional<String> device = this.devices.device(deviceCookie, request.id());
		Runnable checked = device.isPresent() ? this.throttle.checkingDevice(device.get())
				: this.throttle.checking(request.id(), remoteAddress);
		boolean matches;
		Positioned<Optional<String>> hash;
		try {
			if (device.isPresent()) {
				this.throttle.acquireDevice(device.get());
			}
			else {
				this.throttle.acquire(request.id(), remoteAddress);
			}
			try {
				hash = this.credentials.findPasswordHash(request.id(), atLeast);
				matches = this.passwordHasher.matches(PasswordHasher.Work.LOGIN, request.password(),
						hash.value().orElse(this.dummyHash));
			}
			catch (RuntimeException ex) {
				// Overload or an unavailable database: no password was judged.
				if (device.isPresent()) {
					this.throttle.abandonedDevice(device.get());
				}
				else {
					this.throttle.abandoned(request.id(), remoteAddress);
				}
				throw ex;
			}
		}
		finally {
			checked.run();
		}
		if (hash.value().isEmpty() || !matches) {
			throw AuthenticationFailedException.badCredentials();
		}
		if (device.isPresent()) {
			this.throttle.succeededDevice(request.id(), device.get());
		}
		else {
			this.throttle.succeeded(request.id(), remoteAddress);
		}
		return hash.map((found) -> new LoggedIn(this.tokens.issue(request.id()), this.devices.issue(request.id())));
	}

	/**
	 * A successful login.
	 *
	 * @param token the bearer token
	 * @param deviceCookie the value of the client's new device cookie
	 */
	record LoggedIn(String token, String deviceCookie) {
	}

}
