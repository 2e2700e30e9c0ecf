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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.highload.profiles.cluster.ClusterProperties;
import dev.highload.profiles.cluster.EmbeddedCluster;
import dev.highload.profiles.cluster.FailoverCommand;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

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
	 */
	record Settings(boolean synchronous, int writers, int acknowledgedBeforeCrash, int acknowledgedTotal,
			Duration stall, Duration timeLimit, Path output) {

		String mode() {
			return this.synchronous ? "sync" : "async";
		}

	}

	/**
	 * The figures of one run.
	 *
	 * @param mode sync or async
	 * @param sent requests sent
	 * @param acknowledged answered 200
	 * @param acknowledgedAfterFailover of those, answered after the crash
	 * @param failed answered with an error
	 * @param unknown no answer, or 503 "Outcome unknown"
	 * @param lost acknowledged but missing on the new primary
	 * @param unknownPresent unknown and present
	 * @param unknownAbsent unknown and absent
	 * @param failedPresent failed but present
	 * @param unexpected present but never sent, or present twice
	 * @param failoverMillis from the kill to the first acknowledged write
	 * @param failoverCommandMillis the failover command itself
	 * @param rowsOnNewPrimary marker rows on the new primary
	 * @param newPrimary the node that is primary at the end
	 * @param failoverReport what the failover command printed
	 */
	record Report(String mode, int sent, int acknowledged, int acknowledgedAfterFailover, int failed, int unknown,
			int lost, int unknownPresent, int unknownAbsent, int failedPresent, int unexpected, long failoverMillis,
			long failoverCommandMillis, int rowsOnNewPrimary, String newPrimary, String failoverReport) {

		String describe() {
			return """
					lost-write check (%s replication)
					  sent                     %d
					  acknowledged             %d (%d after the crash)
					  failed                   %d
					  unknown                  %d
					  lost                     %d  (acknowledged, missing on the new primary)
					  unknown and present      %d
					  unknown and absent       %d
					  failed but present       %d
					  unexpected               %d  (present but never sent, or twice)
					  rows on the new primary  %d (%s)
					  failover time            %d ms from the kill to the first acknowledged write (command: %d ms)
					""".formatted(this.mode, this.sent, this.acknowledged, this.acknowledgedAfterFailover, this.failed,
					this.unknown, this.lost, this.unknownPresent, this.unknownAbsent, this.failedPresent,
					this.unexpected, this.rowsOnNewPrimary, this.newPrimary, this.failoverMillis,
					this.failoverCommandMillis);
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

		/** The walsenders of the primary are stopped with SIGSTOP. */
		void stallReplication() throws Exception;

		/** SIGKILL to the primary, returning once it is gone. */
		void crashPrimary() throws Exception;

		/** The failover; what it printed. */
		String failover() throws Exception;

		/** What the one writable node holds; fails if two nodes are writable. */
		Rows rows(String markerPrefix) throws Exception;

	}

	/**
	 * The marker rows on the writable node after the run.
	 *
	 * @param primary the writable node
	 * @param markers each marker found, with how often
	 * @param total every row of {@code users}
	 */
	record Rows(String primary, Map<String, Integer> markers, long total) {

	}

	/**
	 * The service with a cluster of its own, in this JVM.
	 * @param settings the load
	 * @param baseDir the cluster's base directory; its cluster is wiped first
	 * @param ports primary, replica1, replica2
	 */
	static Report run(Settings settings, Path baseDir, int[] ports) throws Exception {
		deleteTree(baseDir.resolve("cluster"));
		List<String> args = List.of("--app.cluster.base-dir=" + baseDir, "--app.cluster.primary-port=" + ports[0],
				"--app.cluster.replica1-port=" + ports[1], "--app.cluster.replica2-port=" + ports[2],
				"--app.cluster.shared-buffers=64MB", "--app.cluster.synchronous-replication=" + settings.synchronous(),
				"--server.port=0", "--management.server.port=0", "--logging.level.dev.highload.profiles.web=ERROR",
				"--logging.level.com.zaxxer.hikari=ERROR", "--logging.level.org.hibernate=ERROR");
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

		private final Settings settings;

		private final Target target;

		private final String runId = Long.toString(System.currentTimeMillis(), 36);

		private final HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();

		private final AtomicLong sequence = new AtomicLong();

		private final AtomicInteger acknowledged = new AtomicInteger();

		private final AtomicBoolean stop = new AtomicBoolean();

		private final Map<String, Attempt> attempts = new ConcurrentHashMap<>();

		private volatile long killNanos = Long.MAX_VALUE;

		private final AtomicLong firstAckAfterKill = new AtomicLong(Long.MAX_VALUE);

		private final AtomicInteger acknowledgedAfterKill = new AtomicInteger();

		Run(Settings settings, Target target) {
			this.settings = settings;
			this.target = target;
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
				this.stop.set(true);
				writers.shutdown();
				if (!writers.awaitTermination(60, TimeUnit.SECONDS)) {
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
				String marker = "lw " + this.runId + " " + n;
				String body = json.writeValueAsString(Map.of("first_name", "Lostwrite", "second_name", letters(n),
						"birthdate", "1990-05-17", "biography", marker, "password", "lost-write-check"));
				HttpRequest request = HttpRequest.newBuilder(this.target.register())
					.header("Content-Type", "application/json")
					.timeout(Duration.ofSeconds(20))
					.POST(HttpRequest.BodyPublishers.ofString(body))
					.build();
				long start = System.nanoTime();
				Outcome outcome;
				String detail;
				try {
					HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
					detail = Integer.toString(response.statusCode());
					if (response.statusCode() == 200) {
						outcome = Outcome.ACKNOWLEDGED;
					}
					else if (response.body().contains("\"Outcome unknown\"")) {
						outcome = Outcome.UNKNOWN;
						detail += " outcome unknown";
					}
					else {
						outcome = Outcome.FAILED;
					}
				}
				catch (IOException ex) {
					outcome = Outcome.UNKNOWN;
					detail = ex.getClass().getSimpleName();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					outcome = Outcome.UNKNOWN;
					detail = "interrupted";
				}
				long end = System.nanoTime();
				this.attempts.put(marker, new Attempt(marker, outcome, detail, start, end));
				if (outcome == Outcome.ACKNOWLEDGED) {
					this.acknowledged.incrementAndGet();
					if (start > this.killNanos) {
						this.acknowledgedAfterKill.incrementAndGet();
						this.firstAckAfterKill.accumulateAndGet(end, Math::min);
					}
				}
				if (Thread.currentThread().isInterrupted()) {
					return;
				}
			}
		}

		private Report check(String failoverReport, long failoverCommandMillis) throws Exception {
			Rows rows = this.target.rows("lw " + this.runId + " ");
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
			long failoverMillis = (this.firstAckAfterKill.get() == Long.MAX_VALUE) ? -1
					: (this.firstAckAfterKill.get() - this.killNanos) / 1_000_000;
			Report report = new Report(this.settings.mode(), this.attempts.size(), ack,
					this.acknowledgedAfterKill.get(), failed, unknown, lost, unknownPresent, unknownAbsent,
					failedPresent, unexpected, failoverMillis, failoverCommandMillis,
					present.values().stream().mapToInt(Integer::intValue).sum(), newPrimary, failoverReport);
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
			Map<String, Long> details = this.attempts.values()
				.stream()
				.collect(Collectors.groupingBy((a) -> a.outcome() + " " + a.detail(), Collectors.counting()));
			Files.writeString(this.settings.output().resolve(mode + "-report.txt"),
					report.describe() + "  responses: " + details + "\n\n" + report.failoverReport());
			System.out.print(report.describe() + "  responses: " + details + "\n");
		}

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
			// the
			// others are killed all the same.
			signal("KILL", pids, false);
			ProcessHandle.of(postmaster).ifPresent((p) -> p.onExit().join());
		}

		@Override
		public String failover() throws Exception {
			return FailoverCommand.failover(this.properties);
		}

		@Override
		public Rows rows(String markerPrefix) {
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
					Map<String, Integer> markers = new HashMap<>();
					try (PreparedStatement select = c
						.prepareStatement("SELECT biography FROM users WHERE biography LIKE ?")) {
						select.setString(1, markerPrefix + "%");
						try (ResultSet r = select.executeQuery()) {
							while (r.next()) {
								markers.merge(r.getString(1), 1, Integer::sum);
							}
						}
					}
					try (ResultSet r = s.executeQuery("SELECT count(*) FROM users")) {
						r.next();
						rows = new Rows(node, markers, r.getLong(1));
					}
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
