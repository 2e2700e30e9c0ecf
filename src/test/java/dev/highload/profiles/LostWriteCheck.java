package dev.highload.profiles;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;

import dev.highload.profiles.cluster.ClusterProperties;
import dev.highload.profiles.cluster.EmbeddedCluster;
import dev.highload.profiles.cluster.FailoverCommand;
import dev.highload.profiles.user.UuidV7;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Jepsen-style set check of registrations across a crash of the primary.
 * <p>
 * The deployment is a {@link Target}: the service with an embedded cluster of its own
 * ({@link #run(Settings, Path, int[])}), or the compose deployment
 * ({@code ComposeFailoverIntegrationTests}). Writers send {@code POST /user/register}
 * concurrently, each request with a unique marker in the biography. Each outcome is
 * logged: acknowledged (200), failed (an error response that does not say the outcome is
 * unknown) or unknown (no response: timeout or connection reset; or 503 "Outcome
 * unknown"). Once enough writes are acknowledged, replication is stalled for a moment
 * (the primary's walsenders are stopped with SIGSTOP, as on a slow link), then the
 * primary is killed with SIGKILL (its postmaster and every backend, or its container),
 * the deployment's failover runs, and the writers carry on against the new primary. At
 * the end every marker sent is compared with the rows on the new primary.
 * <p>
 * With synchronous replication no acknowledged write may be missing: the writes during
 * the stall wait and end up unknown. With asynchronous replication (the negative control)
 * the writes acknowledged during the stall are gone, so the check must report losses.
 * <p>
 * The retry phase ({@link Settings#retries()}, on for the synchronous runs): every
 * registration carries an Idempotency-Key, and one not answered 200 (no answer, 409, 429,
 * any 5xx) is sent again with the same key and body, after Retry-After or a short
 * backoff, until it is, or until its deadline. Each request is still classified by its
 * first attempt. After the run, keys that needed a retry and a sample of the others are
 * sent once more (each must get its first {@code user_id} again), and
 * {@link LostWriteVerdict} requires each key to map to exactly one user on the new
 * primary: 0 lost, 0 duplicates, none never acknowledged.
 */
final class LostWriteCheck {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final String FIRST_PRIMARY = "primary";

	private LostWriteCheck() {
	}

	/**
	 * What to run.
	 *
	 * @param synchronous synchronous replication (the real setting) or asynchronous (the
	 * negative control)
	 * @param writers concurrent clients
	 * @param acknowledgedBeforeCrash acknowledged writes before the crash
	 * @param acknowledgedTotal acknowledged writes across the whole run, at least
	 * @param stall how long replication is stalled right before the crash
	 * @param timeLimit the run ends after this even if too few writes were acknowledged
	 * @param output where the report and the outcome log go
	 * @param retries whether every registration carries an Idempotency-Key and is sent
	 * again with it until answered 200 (the retry phase)
	 * @param retryDeadline how long one key is retried, from its first attempt, before it
	 * counts as never acknowledged
	 */
	record Settings(boolean synchronous, int writers, int acknowledgedBeforeCrash, int acknowledgedTotal,
			Duration stall, Duration timeLimit, Path output, boolean retries, Duration retryDeadline) {

		/**
		 * The retry phase with synchronous replication, where it must hold; none for the
		 * asynchronous control, which stays as it was: registrations without a key, each
		 * sent once. A key is retried for up to 120 s, long enough for any failover
		 * measured here.
		 */
		Settings(boolean synchronous, int writers, int acknowledgedBeforeCrash, int acknowledgedTotal, Duration stall,
				Duration timeLimit, Path output) {
			this(synchronous, writers, acknowledgedBeforeCrash, acknowledgedTotal, stall, timeLimit, output,
					synchronous, Duration.ofSeconds(120));
		}

		String mode() {
			return this.synchronous ? "sync" : "async";
		}

	}

	/**
	 * The figures of one run. Each registration is classified by its first attempt, as
	 * without retries; the retry phase's figures are in {@code verdict}.
	 *
	 * @param mode sync or async
	 * @param sent requests sent (first attempts, one per marker)
	 * @param acknowledged first attempts answered 200
	 * @param acknowledgedAfterFailover 200s to requests (first attempts or retries) sent
	 * after the crash
	 * @param failed first attempts answered with an error
	 * @param unknown first attempts without an answer, or answered 503 "Outcome unknown"
	 * @param lost first attempts acknowledged but missing on the new primary
	 * @param unknownPresent unknown and present
	 * @param unknownAbsent unknown and absent
	 * @param failedPresent failed but present
	 * @param unexpected present but never sent, or present twice
	 * @param failoverMillis from the kill to the first acknowledged write
	 * @param failoverCommandMillis the failover command itself
	 * @param rowsOnNewPrimary marker rows on the new primary
	 * @param newPrimary the node that is primary at the end
	 * @param failoverReport what the failover command printed
	 * @param verdict the retry phase's, or null when it did not run
	 * @param probed keys sent once more after the run (every key that needed a retry and
	 * a sample of the others)
	 * @param probeSame of those, answered 200 with the user the key was acknowledged with
	 */
	record Report(String mode, int sent, int acknowledged, int acknowledgedAfterFailover, int failed, int unknown,
			int lost, int unknownPresent, int unknownAbsent, int failedPresent, int unexpected, long failoverMillis,
			long failoverCommandMillis, int rowsOnNewPrimary, String newPrimary, String failoverReport,
			LostWriteVerdict verdict, int probed, int probeSame) {

		/** Keys (or, without the retry phase, first attempts) acknowledged. */
		int acknowledgedInTotal() {
			return (this.verdict != null) ? this.verdict.acknowledged() : this.acknowledged;
		}

		String describe() {
			String text = """
					lost-write check (%s replication)
					  sent                     %d
					  acknowledged             %d (%d answers after the crash, retries included)
					  failed                   %d
					  unknown                  %d
					  lost                     %d  (acknowledged, missing on the new primary)
					  unknown and present      %d  (with the retry phase: the first attempt's row or a retry's)
					  unknown and absent       %d
					  failed but present       %d
					  unexpected               %d  (present but never sent, or twice)
					  rows on the new primary  %d (%s)
					  failover time            %d ms from the kill to the first acknowledged write (command: %d ms)
					""".formatted(this.mode, this.sent, this.acknowledged, this.acknowledgedAfterFailover, this.failed,
					this.unknown, this.lost, this.unknownPresent, this.unknownAbsent, this.failedPresent,
					this.unexpected, this.rowsOnNewPrimary, this.newPrimary, this.failoverMillis,
					this.failoverCommandMillis);
			if (this.verdict == null) {
				return text + "  retry phase              none (one attempt per registration, without a key)\n";
			}
			return text + this.verdict.describe()
					+ "    replay probe           %d of %d keys sent again after the run answered their first user_id%n"
						.formatted(this.probeSame, this.probed);
		}

	}

	enum Outcome {

		ACKNOWLEDGED, FAILED, UNKNOWN

	}

	record Attempt(String marker, Outcome outcome, String detail, long startNanos, long endNanos) {

	}

	/**
	 * The deployment under test: where the service takes registrations, and what can be
	 * done to its nodes.
	 */
	interface Target {

		/** The service's {@code POST /user/register}. */
		URI register();

		/**
		 * What the client trusts when {@link #register()} is HTTPS: the JVM's CAs by
		 * default.
		 */
		default SSLContext sslContext() throws Exception {
			return SSLContext.getDefault();
		}

		/** The walsenders of the primary are stopped with SIGSTOP. */
		void stallReplication() throws Exception;

		/** SIGKILL to the primary, returning once it is gone. */
		void crashPrimary() throws Exception;

		/** The failover; what it printed. */
		String failover() throws Exception;

		/**
		 * What the one writable node holds; fails if two nodes are writable.
		 * @param markerPrefix the start of this run's markers (biographies)
		 * @param keyPrefix the start of this run's Idempotency-Keys
		 */
		Rows rows(String markerPrefix, String keyPrefix) throws Exception;

	}

	/**
	 * The marker rows on the writable node after the run.
	 *
	 * @param primary the writable node
	 * @param users the ids of the user rows, by marker
	 * @param keys {@code registration_keys.user_id}, by key
	 * @param total every row of {@code users}
	 */
	record Rows(String primary, Map<String, List<String>> users, Map<String, String> keys, long total) {

		/** Each marker found, with how often. */
		Map<String, Integer> markers() {
			Map<String, Integer> markers = new HashMap<>();
			this.users.forEach((marker, ids) -> markers.put(marker, ids.size()));
			return markers;
		}

		/**
		 * From lines of {@code biography|id} and {@code key|user_id}.
		 */
		static Rows parse(String primary, List<String> users, List<String> keys, long total) {
			Map<String, List<String>> byMarker = new HashMap<>();
			for (String line : users) {
				int bar = line.lastIndexOf('|');
				byMarker.computeIfAbsent(line.substring(0, bar), (m) -> new ArrayList<>()).add(line.substring(bar + 1));
			}
			Map<String, String> byKey = new HashMap<>();
			for (String line : keys) {
				int bar = line.lastIndexOf('|');
				byKey.put(line.substring(0, bar), line.substring(bar + 1));
			}
			return new Rows(primary, byMarker, byKey, total);
		}

	}

	/** The user rows of the check's markers, as lines of {@code biography|id}. */
	static String usersQuery(String markerPrefix) {
		return "SELECT biography || '|' || id FROM users WHERE biography LIKE '" + markerPrefix + "%'";
	}

	/** The check's keys, as lines of {@code key|user_id}. */
	static String keysQuery(String keyPrefix) {
		return "SELECT key || '|' || user_id FROM registration_keys WHERE key LIKE '" + keyPrefix + "%'";
	}

	/**
	 * The service with a cluster of its own, in this JVM.
	 * @param settings the load
	 * @param baseDir the cluster's base directory; its cluster is wiped first
	 * @param ports primary, replica1, replica2
	 */
	static Report run(Settings settings, Path baseDir, int[] ports) throws Exception {
		return run(settings, baseDir, ports, List.of());
	}

	/**
	 * The same, with the service's pools pointed elsewhere than at the nodes themselves
	 * (stand-ins for a Kubernetes Service, say).
	 * @param settings the load
	 * @param baseDir the cluster's base directory; its cluster is wiped first
	 * @param ports primary, replica1, replica2
	 * @param serviceArgs more arguments for the service, after the cluster's
	 */
	static Report run(Settings settings, Path baseDir, int[] ports, List<String> serviceArgs) throws Exception {
		deleteTree(baseDir.resolve("cluster"));
		List<String> args = new ArrayList<>(List.of("--app.cluster.base-dir=" + baseDir,
				"--app.cluster.primary-port=" + ports[0], "--app.cluster.replica1-port=" + ports[1],
				"--app.cluster.replica2-port=" + ports[2], "--app.cluster.shared-buffers=64MB",
				"--app.cluster.synchronous-replication=" + settings.synchronous(), "--server.port=0",
				"--management.server.port=0", "--logging.level.dev.highload.profiles.input=ERROR",
				"--logging.level.com.zaxxer.hikari=ERROR", "--logging.level.org.hibernate=ERROR"));
		args.addAll(serviceArgs);
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ProfilesApplication.class)
			.profiles("test")
			.run(args.toArray(String[]::new))) {
			int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
			URI register = URI.create("http://127.0.0.1:" + port + "/user/register");
			return run(settings, new EmbeddedTarget(register, baseDir, context.getBean(EmbeddedCluster.class),
					context.getBean(ClusterProperties.class)));
		}
	}

	/** The check against any deployment whose cluster holds no rows but this run's. */
	static Report run(Settings settings, Target target) throws Exception {
		Files.createDirectories(settings.output());
		return new Run(settings, target).execute();
	}

	private static final class Run {

		/**
		 * The first pause before a retry without a Retry-After, doubled up to the most.
		 */
		private static final long FIRST_BACKOFF_MILLIS = 100;

		private static final long MAX_BACKOFF_MILLIS = 2000;

		/** Keys acknowledged at the first attempt that are sent again after the run. */
		private static final int PROBE_SAMPLE = 200;

		private final Settings settings;

		private final Target target;

		private final String runId = Long.toString(System.currentTimeMillis(), 36);

		private final String markerPrefix = "lw " + this.runId + " ";

		private final String keyPrefix = "lw-" + this.runId + "-";

		private final HttpClient http;

		private final AtomicLong sequence = new AtomicLong();

		/** Markers acknowledged, by the first attempt or by a retry. */
		private final AtomicInteger acknowledged = new AtomicInteger();

		private final AtomicBoolean stop = new AtomicBoolean();

		private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();

		private final Map<String, KeyLog> keys = new ConcurrentHashMap<>();

		private volatile long killNanos = Long.MAX_VALUE;

		private final AtomicLong firstAckAfterKill = new AtomicLong(Long.MAX_VALUE);

		private final AtomicInteger acknowledgedAfterKill = new AtomicInteger();

		Run(Settings settings, Target target) throws Exception {
			this.settings = settings;
			this.target = target;
			this.http = HttpClient.newBuilder()
				.version(HttpClient.Version.HTTP_1_1)
				.connectTimeout(Duration.ofSeconds(5))
				.sslContext(target.sslContext())
				.build();
		}

		Report execute() throws Exception {
			long deadline = System.nanoTime() + this.settings.timeLimit().toNanos();
			ExecutorService writers = Executors.newFixedThreadPool(this.settings.writers());
			for (int i = 0; i < this.settings.writers(); i++) {
				writers.submit(this::write);
			}
			String failoverReport;
			long failoverCommandMillis;
			try {
				awaitAcknowledged(this.settings.acknowledgedBeforeCrash(), deadline);
				if (!this.settings.stall().isZero()) {
					this.target.stallReplication();
					Thread.sleep(this.settings.stall().toMillis());
				}
				int before = this.acknowledged.get();
				this.killNanos = System.nanoTime();
				this.target.crashPrimary();
				System.out.println("Killed the primary after " + before + " acknowledged writes");
				long started = System.nanoTime();
				failoverReport = this.target.failover();
				failoverCommandMillis = (System.nanoTime() - started) / 1_000_000;
				System.out.print(failoverReport);
				awaitAcknowledged(this.settings.acknowledgedTotal(), deadline);
				while (this.acknowledgedAfterKill.get() == 0 && System.nanoTime() < deadline) {
					Thread.sleep(100);
				}
			}
			finally {
				// A writer finishes its key: retried until acknowledged or out of time.
				this.stop.set(true);
				writers.shutdown();
				if (!writers.awaitTermination(this.settings.retryDeadline().toSeconds() + 60, TimeUnit.SECONDS)) {
					writers.shutdownNow();
				}
			}
			return check(failoverReport, failoverCommandMillis);
		}

		private void awaitAcknowledged(int count, long deadline) throws InterruptedException {
			while (this.acknowledged.get() < count) {
				if (System.nanoTime() > deadline) {
					Map<String, Long> responses = this.attempts.values()
						.stream()
						.collect(Collectors.groupingBy((a) -> a.outcome() + " " + a.detail(), Collectors.counting()));
					throw new IllegalStateException("Only " + this.acknowledged.get() + " of " + count
							+ " writes acknowledged within " + this.settings.timeLimit() + "; responses: " + responses);
				}
				Thread.sleep(20);
			}
		}

		private void write() {
			while (!this.stop.get()) {
				long n = this.sequence.incrementAndGet();
				String marker = this.markerPrefix + n;
				String key = this.settings.retries() ? this.keyPrefix + n : null;
				String body = json.writeValueAsString(Map.of("first_name", "Lostwrite", "second_name", letters(n),
						"birthdate", "1990-05-17", "biography", marker, "password", "lost-write-check"));
				Answer first = send(body, key);
				this.attempts.put(marker,
						new Attempt(marker, first.outcome(), first.detail(), first.startNanos(), first.endNanos()));
				if (key != null) {
					this.keys.put(key, retry(key, marker, body, first));
				}
				if (Thread.currentThread().isInterrupted()) {
					return;
				}
			}
		}

		/**
		 * Sends the key's registration again, with the same body, until it is answered
		 * 200 or the key's deadline passes; waits as Retry-After says, or backs off from
		 * {@value #FIRST_BACKOFF_MILLIS} ms to {@value #MAX_BACKOFF_MILLIS} ms.
		 */
		private KeyLog retry(String key, String marker, String body, Answer first) {
			long deadline = first.startNanos() + this.settings.retryDeadline().toNanos();
			Answer last = first;
			int retries = 0;
			int replays = 0;
			long backoff = FIRST_BACKOFF_MILLIS;
			while (!last.acknowledged() && last.retryable() && System.nanoTime() < deadline) {
				long pause = Math.max(last.retryAfterMillis(), backoff)
						+ ThreadLocalRandom.current().nextLong(FIRST_BACKOFF_MILLIS);
				backoff = Math.min(2 * backoff, MAX_BACKOFF_MILLIS);
				try {
					Thread.sleep(Math.min(pause, Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
				last = send(body, key);
				retries++;
				if (last.replay()) {
					replays++;
				}
			}
			return new KeyLog(key, marker, body, first.outcome(), retries, replays,
					last.acknowledged() ? last.userId() : null, last.detail());
		}

		/** One request; a 200 is counted here, whichever attempt it answers. */
		private Answer send(String body, String key) {
			HttpRequest.Builder request = HttpRequest.newBuilder(this.target.register())
				.header("Content-Type", "application/json")
				.timeout(Duration.ofSeconds(20))
				.POST(HttpRequest.BodyPublishers.ofString(body));
			if (key != null) {
				request.header("Idempotency-Key", "\"" + key + "\"");
			}
			long startMillis = System.currentTimeMillis();
			long start = System.nanoTime();
			Answer answer;
			try {
				HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
				int status = response.statusCode();
				long retryAfter = response.headers()
					.firstValue("Retry-After")
					.filter((value) -> value.matches("\\d{1,6}"))
					.map((value) -> Long.parseLong(value) * 1000)
					.orElse(0L);
				if (status == 200) {
					String userId = json.readTree(response.body()).path("user_id").asString();
					boolean replay = UuidV7.millis(UUID.fromString(userId)) < startMillis;
					answer = new Answer(Outcome.ACKNOWLEDGED, status, "200", userId, replay, retryAfter, start,
							System.nanoTime());
				}
				else if (response.body().contains("\"Outcome unknown\"")) {
					answer = new Answer(Outcome.UNKNOWN, status, status + " outcome unknown", null, false, retryAfter,
							start, System.nanoTime());
				}
				else {
					answer = new Answer(Outcome.FAILED, status, Integer.toString(status), null, false, retryAfter,
							start, System.nanoTime());
				}
			}
			catch (IOException ex) {
				answer = new Answer(Outcome.UNKNOWN, -1, ex.getClass().getSimpleName(), null, false, 0, start,
						System.nanoTime());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				answer = new Answer(Outcome.UNKNOWN, -1, "interrupted", null, false, 0, start, System.nanoTime());
			}
			if (answer.acknowledged()) {
				this.acknowledged.incrementAndGet();
				if (start > this.killNanos) {
					this.acknowledgedAfterKill.incrementAndGet();
					this.firstAckAfterKill.accumulateAndGet(answer.endNanos(), Math::min);
				}
			}
			return answer;
		}

		/**
		 * Every key that needed a retry, and a sample of the others, sent once more (and
		 * retried as in the run): each must be answered with the user it was acknowledged
		 * with. Their answers join the key's for the verdict.
		 */
		private Map<String, String> probe() throws InterruptedException {
			List<KeyLog> acknowledgedKeys = this.keys.values()
				.stream()
				.filter((k) -> k.userId() != null)
				.sorted((a, b) -> a.key().compareTo(b.key()))
				.toList();
			long firstOnly = acknowledgedKeys.stream().filter((k) -> k.retries() == 0).count();
			long every = Math.max(1, firstOnly / PROBE_SAMPLE);
			List<KeyLog> probes = new ArrayList<>();
			long seen = 0;
			for (KeyLog key : acknowledgedKeys) {
				if (key.retries() > 0 || (seen++ % every) == 0) {
					probes.add(key);
				}
			}
			Map<String, String> answers = new ConcurrentHashMap<>();
			ExecutorService pool = Executors.newFixedThreadPool(this.settings.writers());
			for (KeyLog key : probes) {
				pool.submit(() -> {
					KeyLog again = retry(key.key(), key.marker(), key.body(), send(key.body(), key.key()));
					answers.put(key.key(), (again.userId() != null) ? again.userId() : "no 200: " + again.last());
				});
			}
			pool.shutdown();
			if (!pool.awaitTermination(this.settings.retryDeadline().toSeconds() + 60, TimeUnit.SECONDS)) {
				pool.shutdownNow();
			}
			return answers;
		}

		private Report check(String failoverReport, long failoverCommandMillis) throws Exception {
			Map<String, String> probes = this.settings.retries() ? probe() : Map.of();
			Rows rows = this.target.rows(this.markerPrefix, this.keyPrefix);
			Map<String, Integer> present = new HashMap<>(rows.markers());
			int markerRows = present.values().stream().mapToInt(Integer::intValue).sum();
			if (rows.total() != markerRows) {
				// The cluster was new: a row without this run's marker was never sent.
				present.put("(rows without this run's marker)", (int) (rows.total() - markerRows));
			}
			String newPrimary = rows.primary();
			int ack = 0;
			int failed = 0;
			int unknown = 0;
			int lost = 0;
			int unknownPresent = 0;
			int unknownAbsent = 0;
			int failedPresent = 0;
			for (Attempt attempt : this.attempts.values()) {
				boolean isPresent = present.containsKey(attempt.marker());
				switch (attempt.outcome()) {
					case ACKNOWLEDGED -> {
						ack++;
						lost += isPresent ? 0 : 1;
					}
					case FAILED -> {
						failed++;
						failedPresent += isPresent ? 1 : 0;
					}
					case UNKNOWN -> {
						unknown++;
						if (isPresent) {
							unknownPresent++;
						}
						else {
							unknownAbsent++;
						}
					}
				}
			}
			int unexpected = 0;
			for (Map.Entry<String, Integer> row : present.entrySet()) {
				if (!this.attempts.containsKey(row.getKey())) {
					unexpected += row.getValue();
				}
				else if (row.getValue() > 1) {
					unexpected += row.getValue() - 1;
				}
			}
			LostWriteVerdict verdict = null;
			if (this.settings.retries()) {
				List<LostWriteVerdict.Sent> sent = new ArrayList<>();
				for (KeyLog key : this.keys.values()) {
					List<String> answered = new ArrayList<>();
					if (key.userId() != null) {
						answered.add(key.userId());
						String probed = probes.get(key.key());
						if (probed != null) {
							answered.add(probed);
						}
					}
					sent.add(
							new LostWriteVerdict.Sent(key.key(), key.marker(), key.retries(), key.replays(), answered));
				}
				verdict = LostWriteVerdict.of(sent, rows.users(), rows.keys());
			}
			int probeSame = (int) probes.entrySet()
				.stream()
				.filter((probe) -> probe.getValue().equals(this.keys.get(probe.getKey()).userId()))
				.count();
			long failoverMillis = (this.firstAckAfterKill.get() == Long.MAX_VALUE) ? -1
					: (this.firstAckAfterKill.get() - this.killNanos) / 1_000_000;
			Report report = new Report(this.settings.mode(), this.attempts.size(), ack,
					this.acknowledgedAfterKill.get(), failed, unknown, lost, unknownPresent, unknownAbsent,
					failedPresent, unexpected, failoverMillis, failoverCommandMillis,
					present.values().stream().mapToInt(Integer::intValue).sum(), newPrimary, failoverReport, verdict,
					probes.size(), probeSame);
			writeLog(report);
			return report;
		}

		private void writeLog(Report report) throws IOException {
			String mode = this.settings.mode();
			Path log = this.settings.output().resolve(mode + "-outcomes.csv");
			try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
				out.println("marker,outcome,detail,start_ms_after_kill,end_ms_after_kill");
				this.attempts.values()
					.stream()
					.sorted((a, b) -> Long.compare(a.startNanos(), b.startNanos()))
					.forEach((a) -> out.println(a.marker() + "," + a.outcome() + "," + a.detail() + ","
							+ (a.startNanos() - this.killNanos) / 1_000_000 + ","
							+ (a.endNanos() - this.killNanos) / 1_000_000));
			}
			if (this.settings.retries()) {
				Path keyLog = this.settings.output().resolve(mode + "-keys.csv");
				try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(keyLog, StandardCharsets.UTF_8))) {
					out.println("key,first_outcome,retries,replays,user_id,last_answer");
					this.keys.values()
						.stream()
						.filter((k) -> k.retries() > 0 || k.userId() == null)
						.sorted((a, b) -> a.key().compareTo(b.key()))
						.forEach((k) -> out.println(k.key() + "," + k.first() + "," + k.retries() + "," + k.replays()
								+ "," + k.userId() + "," + k.last()));
				}
			}
			Map<String, Long> details = this.attempts.values()
				.stream()
				.collect(Collectors.groupingBy((a) -> a.outcome() + " " + a.detail(), Collectors.counting()));
			Files.writeString(this.settings.output().resolve(mode + "-report.txt"),
					report.describe() + "  responses: " + details + "\n\n" + report.failoverReport());
			System.out.print(report.describe() + "  responses: " + details + "\n");
		}

	}

	/**
	 * One request's answer.
	 *
	 * @param outcome how the check classifies it
	 * @param status the HTTP status, or -1 without a response
	 * @param detail the status and what kind, or the exception
	 * @param userId the {@code user_id} of a 200
	 * @param replay a 200 naming a user made before this request was sent (its UUIDv7
	 * time, by the same clock), so by an earlier attempt with the key
	 * @param retryAfterMillis the Retry-After header, 0 without one
	 */
	private record Answer(Outcome outcome, int status, String detail, String userId, boolean replay,
			long retryAfterMillis, long startNanos, long endNanos) {

		boolean acknowledged() {
			return this.outcome == Outcome.ACKNOWLEDGED;
		}

		/** No response, or one that says to try again: 409, 429 and every 5xx. */
		boolean retryable() {
			return this.status == -1 || this.status == 409 || this.status == 429 || this.status >= 500;
		}

	}

	/**
	 * What became of one key.
	 *
	 * @param first how its first attempt ended
	 * @param retries how often it was sent again
	 * @param replays retries answered with an earlier attempt's user
	 * @param userId the user its 200 named; null if none came before its deadline
	 * @param last the last answer
	 */
	private record KeyLog(String key, String marker, String body, Outcome first, int retries, int replays,
			String userId, String last) {

	}

	/**
	 * The embedded cluster, driven in this JVM: signals by pid, the failover command.
	 *
	 * @param register the service's {@code POST /user/register}
	 * @param baseDir the cluster's base directory
	 * @param cluster the running cluster
	 * @param properties its settings
	 */
	private record EmbeddedTarget(URI register, Path baseDir, EmbeddedCluster cluster,
			ClusterProperties properties) implements Target {

		@Override
		public void stallReplication() throws Exception {
			List<Long> pids = new ArrayList<>();
			try (Connection c = this.cluster.connectAsSuperuser(FIRST_PRIMARY, "postgres");
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_replication")) {
				while (rs.next()) {
					pids.add(rs.getLong(1));
				}
			}
			signal("STOP", pids, true);
		}

		/**
		 * SIGKILL to the primary's postmaster and every process below it, in one call.
		 */
		@Override
		public void crashPrimary() throws Exception {
			Path lockFile = this.baseDir.resolve("cluster").resolve(FIRST_PRIMARY).resolve("postmaster.pid");
			long postmaster = Long.parseLong(Files.readAllLines(lockFile, StandardCharsets.UTF_8).get(0).trim());
			List<Long> pids = new ArrayList<>();
			pids.add(postmaster);
			ProcessHandle.of(postmaster)
				.orElseThrow(() -> new IllegalStateException("No postmaster " + postmaster))
				.descendants()
				.forEach((p) -> pids.add(p.pid()));
			// A backend that exits between the listing and the kill makes kill exit 1;
			// the others are killed all the same.
			signal("KILL", pids, false);
			ProcessHandle.of(postmaster).ifPresent((p) -> p.onExit().join());
		}

		@Override
		public String failover() throws Exception {
			return FailoverCommand.failover(this.properties);
		}

		@Override
		public Rows rows(String markerPrefix, String keyPrefix) {
			Rows rows = null;
			for (String node : this.cluster.ports().keySet()) {
				try (Connection c = this.cluster.connectAsSuperuser(node, this.properties.database());
						Statement s = c.createStatement();
						ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
					rs.next();
					if (rs.getBoolean(1)) {
						continue;
					}
					if (rows != null) {
						throw new IllegalStateException("Two primaries: " + rows.primary() + " and " + node);
					}
					long total = Long.parseLong(lines(s, "SELECT count(*) FROM users").get(0));
					rows = Rows.parse(node, lines(s, usersQuery(markerPrefix)), lines(s, keysQuery(keyPrefix)), total);
				}
				catch (SQLException ex) {
					// The fenced old primary does not answer.
				}
			}
			if (rows == null) {
				throw new IllegalStateException("No primary answers after the failover");
			}
			return rows;
		}

		private static List<String> lines(Statement s, String sql) throws SQLException {
			List<String> lines = new ArrayList<>();
			try (ResultSet r = s.executeQuery(sql)) {
				while (r.next()) {
					lines.add(r.getString(1));
				}
			}
			return lines;
		}

		private static void signal(String signal, List<Long> pids, boolean strict)
				throws IOException, InterruptedException {
			if (pids.isEmpty()) {
				return;
			}
			List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
			pids.forEach((pid) -> command.add(Long.toString(pid)));
			Process kill = new ProcessBuilder(command).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || (strict && kill.exitValue() != 0)) {
				throw new IllegalStateException("Failed: " + command);
			}
		}

	}

	/**
	 * The retry phase's verdict: every key answered 200 (first or by a retry) and maps to
	 * exactly one user, the one it was answered; 0 lost, 0 duplicates; every key sent
	 * again after the run answered with that same user.
	 */
	static void assertEachKeyMapsToOneUser(Report report, int acknowledged) {
		LostWriteVerdict verdict = report.verdict();
		assertThat(verdict).as("the retry phase ran").isNotNull();
		assertThat(verdict.acknowledged()).as("keys acknowledged").isGreaterThanOrEqualTo(acknowledged);
		assertThat(verdict.unresolved()).as("keys never acknowledged before their deadline").isZero();
		assertThat(verdict.lost()).as("keys acknowledged, their user missing").isZero();
		assertThat(verdict.duplicates()).as("more than one user for one key").isZero();
		assertThat(verdict.unmapped()).as("registration_keys not naming the key's one user").isZero();
		assertThat(report.probeSame()).as("keys sent again answered with their first user_id")
			.isEqualTo(report.probed());
	}

	/** A name of letters only, as the API's name rule wants, from a number. */
	static String letters(long n) {
		StringBuilder name = new StringBuilder("Lw");
		long rest = n;
		do {
			name.append((char) ('a' + (rest % 26)));
			rest /= 26;
		}
		while (rest > 0);
		return name.toString();
	}

	private static void deleteTree(Path root) throws IOException {
		if (!Files.exists(root)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(root)) {
			for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
				Files.delete(path);
			}
		}
	}

}
