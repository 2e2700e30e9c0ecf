package dev.highload.profiles;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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

	private static final int FLOOD_CONNECTIONS = 128;

	private static final int OTHER_LOGINS = 20;

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

	/**
	 * Issue 59: correct logins are no failures, so two addresses logging in to an account
	 * of their own as fast as they could filled the logins' hashing queue, and another
	 * user's logins took up to 8 s. Now each account and each client has a few password
	 * checks running at once, the rest 429 at once: another user's 20 logins, one a
	 * second, and the owner's login with its device cookie, on the flooded account
	 * itself, are all 200 within 2 s.
	 */
	@Test
	void correctLoginsToOneAccountFromTwoAddressesLeaveOthersLoggingIn() throws Exception {
		ApiClient api = new ApiClient(this.port);
		UUID flooded = api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "flooded-password");
		UUID other = api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "other-password");
		AbuseIntegrationTests.RawClient owner = new AbuseIntegrationTests.RawClient("127.0.0.193", this.port);
		ApiClient.Response first = owner.login(flooded, "flooded-password");
		assertThat(first.status()).isEqualTo(200);
		String device = AbuseIntegrationTests.deviceCookie(first);

		ExecutorService attackers = Executors.newFixedThreadPool(FLOOD_CONNECTIONS);
		AtomicBoolean flooding = new AtomicBoolean(true);
		Map<Integer, Integer> flood = new ConcurrentHashMap<>();
		try {
			for (int i = 0; i < FLOOD_CONNECTIONS; i++) {
				AbuseIntegrationTests.RawClient attacker = new AbuseIntegrationTests.RawClient(
						"127.0.0." + (190 + i % 2), this.port);
				attackers.submit(() -> {
					while (flooding.get()) {
						flood.merge(attacker.login(flooded, "flooded-password").status(), 1, Integer::sum);
					}
				});
			}
			Thread.sleep(2_000);
			AbuseIntegrationTests.RawClient user = new AbuseIntegrationTests.RawClient("127.0.0.192", this.port);
			List<String> slowOrRefused = new ArrayList<>();
			long slowest = 0;
			for (int i = 0; i < OTHER_LOGINS; i++) {
				long start = System.nanoTime();
				int status = user.login(other, "other-password").status();
				long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				slowest = Math.max(slowest, millis);
				if (status != 200 || millis > 2_000) {
					slowOrRefused.add("login " + (i + 1) + ": " + status + " in " + millis + " ms");
				}
				if (i == OTHER_LOGINS / 2) {
					start = System.nanoTime();
					status = owner.login(flooded, "flooded-password", "Cookie", "device=" + device).status();
					millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
					if (status != 200 || millis > 2_000) {
						slowOrRefused.add("the owner's device login: " + status + " in " + millis + " ms");
					}
				}
				waitUntil(start, 1_000);
			}
			flooding.set(false);
			System.out.printf("Correct-login flood: %s; the other user's slowest login %d ms%n", flood, slowest);
			assertThat(slowOrRefused).as("the flood: %s", flood).isEmpty();
			assertThat(flood.getOrDefault(200, 0)).as("the flood logged in: it was real (%s)", flood)
				.isGreaterThanOrEqualTo(OTHER_LOGINS);
		}
		finally {
			flooding.set(false);
			attackers.shutdown();
			attackers.awaitTermination(60, TimeUnit.SECONDS);
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
