package dev.highload.profiles;

import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Correct logins to one account, as fast as they go, from connections of two loopback
 * addresses, for a given time: the attacker of
 * {@link LoginFloodIntegrationTests#correctLoginsToOneAccountFromTwoAddressesLeaveOthersLoggingIn},
 * run as a process of its own so that the test can start it at the lowest CPU priority
 * ({@code nice -n 19}): an attacker's clients run on its own machines, and on the test's
 * two cores they would otherwise take the CPU from the service they attack. Prints
 * {@code flooding} once it has started, then the answers' statuses and counts on one line
 * when it ends.
 * <p>
 * Arguments: port, account id, password, connections, seconds, then the addresses.
 */
final class LoginFlooder {

	private LoginFlooder() {
	}

	public static void main(String[] args) throws InterruptedException {
		int port = Integer.parseInt(args[0]);
		UUID account = UUID.fromString(args[1]);
		String password = args[2];
		int connections = Integer.parseInt(args[3]);
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
		Map<String, Integer> answers = new ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(connections);
		for (int i = 0; i < connections; i++) {
			AbuseIntegrationTests.RawClient client = new AbuseIntegrationTests.RawClient(
					args[5 + i % (args.length - 5)], port);
			threads.submit(() -> {
				while (System.nanoTime() < until) {
					String answer;
					try {
						answer = Integer.toString(client.login(account, password).status());
					}
					catch (UncheckedIOException ex) {
						answer = ex.getCause().getClass().getSimpleName();
					}
					answers.merge(answer, 1, Integer::sum);
				}
			});
		}
		System.out.println("flooding");
		threads.shutdown();
		threads.awaitTermination(TimeUnit.NANOSECONDS.toSeconds(until - System.nanoTime()) + 30, TimeUnit.SECONDS);
		System.out.println(new TreeMap<>(answers));
	}

}
