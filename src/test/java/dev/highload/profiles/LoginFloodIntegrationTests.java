package dev.highload.profiles;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of wrong-password logins from many addresses must not refuse registrations:
 * 1,000 logins of unknown ids (each hashed against the dummy hash, as a wrong password
 * is) from 20 addresses at 50 a second, while a registration comes every 200 ms.
 * Admission control on, the per-address login limit at its default (50 failures, so each
 * address may fail all of its 50). One hashing thread for each kind of work
 * ({@code -Dit.login-flood.hash-threads}, 0 for one per core as shipped), so that the
 * flood outruns the logins' hashing on any machine: registrations must keep their own.
 */
@IntegrationTest
@TestPropertySource(properties = { "app.admission.enabled=true", "app.auth.throttle.login-failures-per-address=50",
		"app.auth.hash-threads=${it.login-flood.hash-threads:1}" })
class LoginFloodIntegrationTests {

	private static final int LOGINS = 1_000;

	private static final int ADDRESSES = 20;

	private static final long LOGIN_EVERY_MILLIS = 20;

	private static final int REGISTRATIONS = 100;

	private static final long REGISTRATION_EVERY_MILLIS = 200;

	@LocalServerPort
	int port;

	@Test
	void wrongPasswordsFromManyAddressesLeaveRegistrationsServed() throws Exception {
		ApiClient api = new ApiClient(this.port);
		ExecutorService clients = Executors.newFixedThreadPool(200);
		List<Future<Integer>> logins = new ArrayList<>();
		List<Future<Integer>> registrations = new ArrayList<>();
		try {
			long start = System.nanoTime();
			for (int i = 0; i < LOGINS; i++) {
				waitUntil(start, i * LOGIN_EVERY_MILLIS);
				AbuseIntegrationTests.RawClient client = new AbuseIntegrationTests.RawClient(
						"127.0.0." + (170 + i % ADDRESSES), this.port);
				logins.add(clients.submit(() -> client.login(UUID.randomUUID(), "wrong-password").status()));
				if (i % (REGISTRATION_EVERY_MILLIS / LOGIN_EVERY_MILLIS) == 0 && registrations.size() < REGISTRATIONS) {
					registrations.add(clients.submit(
							() -> api
								.post("/user/register", ApiClient.registration(ApiClient.uniqueName(),
										ApiClient.uniqueName(), "secret-password"))
								.status()));
				}
			}
			Map<Integer, Integer> loginAnswers = count(logins);
			Map<Integer, Integer> registrationAnswers = count(registrations);
			assertThat(registrationAnswers).as("registrations during the flood (logins: %s)", loginAnswers)
				.isEqualTo(Map.of(200, REGISTRATIONS));
			assertThat(loginAnswers.keySet()).as("logins").isSubsetOf(401, 429, 503);
			assertThat(loginAnswers.getOrDefault(401, 0)).as("logins hashed and refused: the flood was real")
				.isGreaterThanOrEqualTo(100);
		}
		finally {
			clients.shutdownNow();
		}
	}

	private static void waitUntil(long start, long millis) throws InterruptedException {
		long wait = start + TimeUnit.MILLISECONDS.toNanos(millis) - System.nanoTime();
		if (wait > 0) {
			TimeUnit.NANOSECONDS.sleep(wait);
		}
	}

	private static Map<Integer, Integer> count(List<Future<Integer>> answers) throws Exception {
		Map<Integer, Integer> counts = new TreeMap<>();
		for (Future<Integer> answer : answers) {
			counts.merge(answer.get(60, TimeUnit.SECONDS), 1, Integer::sum);
		}
		return counts;
	}

}
