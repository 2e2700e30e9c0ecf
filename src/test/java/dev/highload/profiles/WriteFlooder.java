package dev.highload.profiles;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Registrations and logins at once, each client from a loopback address of its own and
 * paced: the attacker of {@link WriteFloodIntegrationTests}, run as a process of its own
 * so that the test starts it at the lowest CPU priority ({@code nice -n 19}), as
 * {@link LoginFlooder} is. Prints {@code flooding} once its clients have started, floods
 * until a line arrives on its standard input (or it ends), then prints the answers'
 * statuses and counts on one line.
 * <p>
 * Arguments: port, pause between two requests of one client in milliseconds, password,
 * then the accounts to log in to, one client of each kind per account.
 */
final class WriteFlooder {

	private WriteFlooder() {
	}

	private static String status(java.util.function.IntSupplier request) {
		try {
			return Integer.toString(request.getAsInt());
		}
		catch (java.io.UncheckedIOException ex) {
			return ex.getCause().getClass().getSimpleName();
		}
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		long pause = Long.parseLong(args[1]);
		String password = args[2];
		int clients = args.length - 3;
		AtomicBoolean flooding = new AtomicBoolean(true);
		Map<String, Integer> answers = new ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(2 * clients);
		for (int i = 0; i < clients; i++) {
			UUID account = UUID.fromString(args[3 + i]);
			AbuseIntegrationTests.RawClient registrant = new AbuseIntegrationTests.RawClient("127.0.1." + (10 + i),
					port);
			AbuseIntegrationTests.RawClient login = new AbuseIntegrationTests.RawClient("127.0.2." + (10 + i), port);
			threads.submit(() -> {
				while (flooding.get()) {
					Thread.sleep(pause);
					answers.merge(
							"register " + status(() -> registrant
								.post("/user/register",
										ApiClient.registration(ApiClient.uniqueName(), ApiClient.uniqueName(),
												password))
								.status()),
							1, Integer::sum);
				}
				return null;
			});
			threads.submit(() -> {
				while (flooding.get()) {
					Thread.sleep(pause);
					answers.merge("login " + status(() -> login.login(account, password).status()), 1, Integer::sum);
				}
				return null;
			});
		}
		System.out.println("flooding");
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		flooding.set(false);
		threads.shutdown();
		threads.awaitTermination(60, TimeUnit.SECONDS);
		System.out.println(new TreeMap<>(answers));
	}

}
