package dev.highload.profiles.auth;

import java.time.Clock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * Registration-flood protection: registrations per client address in a window
 * ({@code app.auth.throttle.registrations-per-address}). Each registration costs a
 * password hash and a row, so it is counted before either.
 */
@Component
public class RegistrationThrottle {

	private final AttemptLimiter addresses;

	private final Counter rejected;

	RegistrationThrottle(ThrottleProperties properties, Clock clock, MeterRegistry meterRegistry) {
		this.addresses = new AttemptLimiter(properties.registrationsPerAddress(), properties.registrationWindow(),
				properties.maxTracked(), clock);
		this.rejected = Counter.builder("profiles.throttle.rejected")
			.description("Requests answered 429 because a client used up its attempts or an account must wait")
			.tag("operation", "registration")
			.register(meterRegistry);
	}

	/**
	 * Counts a registration from the client.
	 * @param remoteAddress the client's address ({@code getRemoteAddr()}: the socket's
	 * peer, or what a trusted proxy forwarded, see {@link ThrottleProperties})
	 * @throws TooManyAttemptsException if the client has used up its registrations for
	 * now
	 */
	public void acquire(String remoteAddress) {
		long wait = this.addresses.tryAcquire(ClientAddress.key(remoteAddress));
		if (wait != 0) {
			this.rejected.increment();
			throw TooManyAttemptsException.registrations(wait);
		}
	}

}
