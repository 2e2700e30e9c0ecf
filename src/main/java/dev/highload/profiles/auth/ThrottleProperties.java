package dev.highload.profiles.auth;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Limits on login and registration attempts ({@code app.auth.throttle.*}). A client is
 * the address its connection comes from. Past a limit the service answers 429 with
 * Retry-After until the window that started with the first counted attempt ends. A limit
 * of 0 turns that limit off.
 *
 * @param loginFailuresPerAccount failed logins allowed for one user id in a login window;
 * unknown ids are counted the same way, so the answer never tells whether an id exists
 * @param loginFailuresPerAddress failed logins allowed from one client in a login window,
 * whatever the ids
 * @param loginWindow the login window
 * @param registrationsPerAddress registrations from one client in a registration window
 * @param registrationWindow the registration window
 * @param maxTracked the most accounts, and separately the most clients, whose counts are
 * kept; beyond that the least recently seen are forgotten, so memory stays bounded
 * whatever ids and addresses an attacker sends
 */
@ConfigurationProperties("app.auth.throttle")
public record ThrottleProperties(@DefaultValue("10") int loginFailuresPerAccount,
		@DefaultValue("50") int loginFailuresPerAddress, @DefaultValue("15m") Duration loginWindow,
		@DefaultValue("20") int registrationsPerAddress, @DefaultValue("1h") Duration registrationWindow,
		@DefaultValue("50000") int maxTracked) {

	public ThrottleProperties {
		if (loginFailuresPerAccount < 0 || loginFailuresPerAddress < 0 || registrationsPerAddress < 0) {
			throw new IllegalArgumentException("app.auth.throttle limits must be 0 (off) or positive");
		}
		if (loginWindow.isNegative() || loginWindow.isZero() || registrationWindow.isNegative()
				|| registrationWindow.isZero()) {
			throw new IllegalArgumentException("app.auth.throttle windows must be positive");
		}
		if (maxTracked < 1) {
			throw new IllegalArgumentException("app.auth.throttle.max-tracked must be positive");
		}
	}

}
