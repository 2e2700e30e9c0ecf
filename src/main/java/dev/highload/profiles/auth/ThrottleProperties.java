package dev.highload.profiles.auth;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Limits on login and registration attempts ({@code app.auth.throttle.*}). A limit of 0
 * turns that limit off.
 * <p>
 * A client is the address {@code HttpServletRequest.getRemoteAddr()} gives: the
 * connection's peer, unless Tomcat's {@code RemoteIpValve} has replaced it with the
 * address a trusted proxy forwarded ({@code server.forward-headers-strategy=native} with
 * {@code server.tomcat.remoteip.internal-proxies} matching only the proxy's address; off
 * by default, see {@code application.yml}). Past a per-client limit the service answers
 * 429 with Retry-After until the window that started with the first counted attempt ends.
 * <p>
 * An account is never locked: that would let anyone who knows a user id (and
 * {@code /user/search} lists them) lock its owner out. Delays are kept per account and
 * client: a client's first failures on an id cost nothing; past them, its next attempt on
 * that id must wait a delay after its last failure there, which doubles with each further
 * failure (OWASP, Authentication and Credential Stuffing Prevention cheat sheets). So one
 * client's failures slow that client alone, and an owner on another client logs in at
 * once. Against guessing from many clients at once, the account has a higher ceiling:
 * past it, every client waits the account's own delay. An attempt inside a delay gets 429
 * with Retry-After and costs no password hash, but it is not free: it counts towards the
 * client's own limit, and a successful login clears the id's failures.
 *
 * @param loginFailuresPerAccountAndAddress failed logins for one user id from one client
 * in a login window that cost no delay; unknown ids are counted the same way, so the
 * answer never tells whether an id exists
 * @param loginFailuresPerAccount failed logins for one user id from all clients together
 * in a login window before every client waits the account's delay: the ceiling against
 * guessing from many addresses, high enough that one client (held to
 * {@code loginFailuresPerAddress}) cannot reach it
 * @param loginFailuresPerAddress failed logins allowed from one client in a login window,
 * whatever the ids
 * @param loginWindow the login window; when it ends, a client's or an account's count
 * starts afresh
 * @param accountDelay the wait after the failure that used up a client's free failures on
 * an account (or the account's, past its ceiling); each further failure doubles it
 * @param maxAccountDelay the longest wait between two attempts of a client on one account
 * (and, past the ceiling, of all clients on it). 30 s keeps guessing slow (at this cap a
 * client takes about 2 guesses a minute on an account, and past the ceiling all clients
 * together do, besides the free failures of each window) while nobody who waits as
 * Retry-After says waits longer than that; a longer cap would slow guessing further but
 * turn the delay back into a short lockout
 * @param registrationsPerAddress registrations from one client in a registration window
 * @param registrationWindow the registration window
 * @param maxTracked the most accounts, and separately the most clients, whose counts are
 * kept; beyond that the least recently seen are forgotten, so memory stays bounded
 * whatever ids and addresses an attacker sends
 * @param loginsAtOncePerAccount logins to one user id whose password may be waiting for
 * or in the hashing pool at once, from clients without that id's device cookie; one more
 * is answered 429 at once. Correct logins are no failures, so without it two clients
 * logging in to an account of their own as fast as they can filled the logins' hashing
 * queue, and everyone else's logins waited seconds behind them (issue 59)
 * @param loginsAtOncePerClient the same for one client (an address, or a device cookie),
 * whatever the ids: one client's share of the logins' hashing
 */
@ConfigurationProperties("app.auth.throttle")
public record ThrottleProperties(@DefaultValue("10") int loginFailuresPerAccountAndAddress,
		@DefaultValue("100") int loginFailuresPerAccount, @DefaultValue("50") int loginFailuresPerAddress,
		@DefaultValue("15m") Duration loginWindow, @DefaultValue("1s") Duration accountDelay,
		@DefaultValue("30s") Duration maxAccountDelay, @DefaultValue("20") int registrationsPerAddress,
		@DefaultValue("1h") Duration registrationWindow, @DefaultValue("50000") int maxTracked,
		@DefaultValue("2") int loginsAtOncePerAccount, @DefaultValue("2") int loginsAtOncePerClient) {

	public ThrottleProperties {
		if (loginFailuresPerAccountAndAddress < 0 || loginFailuresPerAccount < 0 || loginFailuresPerAddress < 0
				|| registrationsPerAddress < 0) {
			throw new IllegalArgumentException("app.auth.throttle limits must be 0 (off) or positive");
		}
		if (loginWindow.isNegative() || loginWindow.isZero() || registrationWindow.isNegative()
				|| registrationWindow.isZero()) {
			throw new IllegalArgumentException("app.auth.throttle windows must be positive");
		}
		if (accountDelay.toMillis() < 1 || maxAccountDelay.compareTo(accountDelay) < 0) {
			throw new IllegalArgumentException("app.auth.throttle.account-delay must be at least 1ms and "
					+ "app.auth.throttle.max-account-delay at least as long");
		}
		if (maxTracked < 1) {
			throw new IllegalArgumentException("app.auth.throttle.max-tracked must be positive");
		}
	}

}
