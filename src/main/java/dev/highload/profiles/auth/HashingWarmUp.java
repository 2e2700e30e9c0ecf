package dev.highload.profiles.auth;

import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * Hashes and checks throw-away passwords on the hashing pools before the service reports
 * ready, before the reads' warm-up (warmup/WarmUp) runs. Interpreted, before the JIT
 * compiler has reached it, an Argon2 hash takes many times its compiled time (a fresh
 * service's first hashes took up to 700 ms beside a load generator starting on the same
 * cores), and with 4 places for each kind of hash ({@link AuthProperties#hashQueue()}) a
 * fresh instance's first burst of registrations was refused. Compiled, a stall of the
 * cores can still fill the places (docs/api.md, "Passwords"). No row is written and no
 * login counted. Off with the rest of the warm-up ({@code app.warm-up.enabled}).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
@ConditionalOnBooleanProperty(name = "app.warm-up.enabled", matchIfMissing = true)
class HashingWarmUp implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(HashingWarmUp.class);

	/** About a second of one core once compiled (24 ms a hash here, two a round). */
	static final int ROUNDS = 20;

	private final PasswordHasher hasher;

	HashingWarmUp(PasswordHasher hasher) {
		this.hasher = hasher;
	}

	@Override
	public void run(ApplicationArguments args) {
		long[] nanos = new long[ROUNDS];
		int round = 0;
		try {
			for (; round < ROUNDS; round++) {
				nanos[round] = this.hasher.exercise();
			}
		}
		catch (RuntimeException ex) {
			// A warm-up is no reason to refuse to start: the service hashes cold instead.
			log.warn("Password hashing warm-up stopped after {} of {} rounds: {}", round, ROUNDS, ex.toString());
			return;
		}
		log.info("Password hashing warmed up: {} hashes and checks, the first {} ms, the last {} ms", ROUNDS,
				TimeUnit.NANOSECONDS.toMillis(nanos[0]), TimeUnit.NANOSECONDS.toMillis(nanos[ROUNDS - 1]));
	}

}
