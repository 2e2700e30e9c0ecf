package dev.highload.profiles.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.highload.profiles.LocalProfilesApplication;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the README promises about the service and its cluster, with the service as the
 * README runs it: a process of its own that owns the nodes, under a light load of reads,
 * searches and registrations.
 * <ul>
 * <li>Seeding beside the running service and the failover command fail no request, except
 * registrations answered 503 "Database unavailable" or "Outcome unknown" while the
 * failover runs and for {@link #GRACE} after it (docs/operations.md#failover).</li>
 * <li>A second start is refused naming the owner, and the owner goes on serving.</li>
 * <li>{@code kill -9} of the service leaves its nodes running; the next start takes them
 * over, with one primary and two streaming standbys, and serves every acknowledged
 * registration and seeded id.</li>
 * <li>Ctrl-C (SIGINT) stops the service and every node, and frees the cluster.</li>
 * </ul>
 * Its own cluster directory and ports 27432-27434 ({@code -Dit.service-lifecycle.port}
 * moves them); the HTTP ports are free ones.
 */
class ServiceLifecycleIntegrationTests {

	private static final Path BASE_DIR = Path.of("target/service-lifecycle-cluster");

	private static final int PRIMARY_PORT = Integer.getInteger("it.service-lifecycle.port", 27432);

	private static final ClusterProperties properties = OwnCluster.properties(BASE_DIR.getFileName().toString(),
			PRIMARY_PORT);

	private static final Duration GRACE = Duration.ofSeconds(10);

	private static final Duration START_TIMEOUT = Duration.ofMinutes(5);

	private static final int SEEDED = 2000;

	private static final JsonMapper json = JsonMapper.builder().build();

	@BeforeAll
	@AfterAll
	static void clean() throws Exception {
		OwnCluster.deleteNodes(properties);
	}

	@Test
	void theServiceOwnsItsNodesSurvivesAFailoverAndAKillAndStopsThemOnCtrlC() throws Exception {
		Service first = Service.start("first");
		Service next = null;
		Load load = new Load(first.api);
		try {
			load.start();

			// Seeding beside the running service joins its cluster and leaves it running.
			Path idsFile = BASE_DIR.resolve("user-ids.csv");
			Process seeding = Service.launch("seeding", "--app.seed.users=" + SEEDED, "--app.seed.ids-file=" + idsFile);
			assertThat(seeding.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("seeding ends").isTrue();
			assertThat(seeding.exitValue()).as("seeding's exit status\n" + Service.tail("seeding")).isZero();
			List<String> seeded = Files.readAllLines(idsFile).subList(1, SEEDED + 1);
			load.seeded(seeded);

			// The README's failover: beside the running service, its primary healthy.
			long failoverStart = System.currentTimeMillis();
			String report = FailoverCommand.failover(properties);
			long failoverEnd = System.currentTimeMillis();
			assertThat(report).contains("failed over beside it").contains("STAYS DOWN");
			load.allowRefusedRegistrations(failoverStart, failoverEnd + GRACE.toMillis());
			await("a registration acknowledged after the failover's grace").atMost(Duration.ofSeconds(60))
				.until(() -> load.acknowledgedSince(failoverEnd + GRACE.toMillis()));

			// A second start is refused, naming the owner, and the owner goes on serving.
			Process second = Service.launch("second");
			assertThat(second.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the second start ends")
				.isTrue();
			assertThat(second.exitValue()).as("the second start's exit status").isNotZero();
			assertThat(Service.log("second")).contains("already run by process " + first.process.pid());
			assertThat(first.ready()).as("the first service answers after the refusal").isTrue();

			load.stop();
			assertThat(load.failures()).as("requests of the load that failed").isEmpty();
			assertThat(load.acknowledged()).isNotEmpty();

			// kill -9: the kernel drops the owner's lock, its nodes run on, orphaned.
			// The failover stopped the old primary: two nodes run.
			Map<String, Long> orphans = postmasters();
			orphans.values().removeIf((pid) -> !alive(pid));
			assertThat(orphans).hasSize(2);
			first.process.destroyForcibly().waitFor();
			assertThat(orphans.values()).allMatch(ServiceLifecycleIntegrationTests::alive);

			// The restart warms up as shipped (the test profile turns it off elsewhere):
			// its API
			// answers, while its readiness says "not ready" until the warm-up has ended.
			Service restarted = Service.start("next", "--app.warm-up.enabled=true", "--app.warm-up.min-time=3s",
					"--app.warm-up.max-time=60s");
			next = restarted;
			assertThat(restarted.servedBeforeReady()).as("the API answered while readiness said not ready").isTrue();
			assertThat(Service.log("next")).containsPattern("Warm-up: [1-9][0-9]* requests in .*; ready");
			assertThat(orphans.values()).noneMatch(ServiceLifecycleIntegrationTests::alive);
			await("one primary and two streaming standbys").atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertOnePrimaryAndTwoStreamingStandbys(restarted));
			List<String> missing = new ArrayList<>();
			for (String id : concat(load.acknowledged(), seeded)) {
				HttpResponse<String> response = next.get("/user/" + id);
				if (response.statusCode() != 200) {
					missing.add(id + " " + response.statusCode());
				}
			}
			assertThat(missing).as("acknowledged registrations and seeded ids missing after the restart").isEmpty();

			// Ctrl-C in the service's terminal.
			Map<String, Long> running = postmasters();
			assertThat(running).hasSize(3).allSatisfy((node, pid) -> assertThat(alive(pid)).as(node).isTrue());
			new ProcessBuilder("kill", "-INT", Long.toString(next.process.pid())).start().waitFor();
			assertThat(next.process.waitFor(120, TimeUnit.SECONDS)).as("the service stops on SIGINT").isTrue();
			assertThat(running.values()).noneMatch(ServiceLifecycleIntegrationTests::alive);
			assertThat(ClusterOwnership.otherOwner(properties.baseDir())).as("an owner after Ctrl-C").isEmpty();
		}
		finally {
			load.stop();
			for (Process process : Service.launched) {
				process.destroyForcibly().waitFor();
			}
			for (long pid : postmasters().values()) {
				ProcessHandle.of(pid).ifPresent((postmaster) -> {
					postmaster.destroy();
					postmaster.onExit().orTimeout(60, TimeUnit.SECONDS).join();
				});
			}
		}
	}

	private static void assertOnePrimaryAndTwoStreamingStandbys(Service service) throws Exception {
		JsonNode details = json.readTree(service.management("/actuator/health/nodes").body()).get("details");
		JsonNode nodes = details.get("nodes");
		List<JsonNode> primaries = new ArrayList<>();
		for (JsonNode node : nodes) {
			assertThat(node.get("state").asString()).as(node.toString()).isEqualTo("up");
			if ("primary".equals(node.get("role").asString())) {
				primaries.add(node);
			}
		}
		assertThat(primaries).as(nodes.toString()).hasSize(1);
		List<String> streaming = new ArrayList<>();
		details.get("replicas").forEach((r) -> streaming.add(r.get("state").asString()));
		assertThat(streaming).as(nodes.toString()).containsExactly("streaming", "streaming");
	}

	/** Node name to the pid in its postmaster.pid, for the nodes that have one. */
	private static Map<String, Long> postmasters() throws IOException {
		Map<String, Long> pids = new TreeMap<>();
		for (String node : new String[] { "primary", "replica1", "replica2" }) {
			Path lockFile = BASE_DIR.resolve("cluster").resolve(node).resolve("postmaster.pid");
			if (Files.exists(lockFile)) {
				pids.put(node, Long.parseLong(Files.readAllLines(lockFile).get(0).trim()));
			}
		}
		return pids;
	}

	private static boolean alive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	private static List<String> concat(List<String> one, List<String> two) {
		List<String> all = new ArrayList<>(one);
		all.addAll(two);
		return all;
	}

	/** The service in a JVM of its own, on this test's cluster, with the test profile. */
	private record Service(Process process, URI api, URI managementUri, AtomicBoolean servedBeforeReadiness) {

		/** Every JVM this test started, to end in any case. */
		static final List<Process> launched = new ArrayList<>();

		private static final HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();

		static Service start(String name, String... arguments) throws Exception {
			int apiPort = freePort();
			int managementPort = freePort();
			List<String> all = new ArrayList<>(
					List.of("--server.port=" + apiPort, "--management.server.port=" + managementPort));
			all.addAll(List.of(arguments));
			Process process = launch(name, all.toArray(String[]::new));
			Service service = new Service(process, URI.create("http://127.0.0.1:" + apiPort),
					URI.create("http://127.0.0.1:" + managementPort), new AtomicBoolean());
			try {
				await(name + " ready").atMost(START_TIMEOUT)
					.pollInterval(Duration.ofMillis(500))
					.failFast(name + " exited", () -> !process.isAlive())
					.until(service::readyNoting);
			}
			catch (ConditionTimeoutException | TerminalFailureException ex) {
				process.destroyForcibly();
				throw new AssertionError(name + " did not start:\n" + tail(name), ex);
			}
			return service;
		}

		/**
		 * Starts the application's main class. SIGINT gets its default action back: a
		 * test run in the background of a shell inherits it ignored, and a JVM leaves an
		 * ignored SIGINT ignored, so Ctrl-C would not reach it.
		 */
		static Process launch(String name, String... arguments) throws IOException {
			Path log = BASE_DIR.resolve(name + ".log");
			Files.createDirectories(BASE_DIR);
			List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT",
					Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
					System.getProperty("java.class.path"), LocalProfilesApplication.class.getName(),
					"--spring.profiles.active=test", "--app.cluster.base-dir=" + BASE_DIR,
					"--app.cluster.primary-port=" + properties.primaryPort(),
					"--app.cluster.replica1-port=" + properties.replica1Port(),
					"--app.cluster.replica2-port=" + properties.replica2Port(),
					"--app.cluster.shared-buffers=" + properties.sharedBuffers()));
			command.addAll(List.of(arguments));
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			launched.add(process);
			return process;
		}

		static String log(String name) throws IOException {
			return Files.readString(BASE_DIR.resolve(name + ".log"));
		}

		static String tail(String name) throws IOException {
			List<String> lines = log(name).lines().toList();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
		}

		/**
		 * Whether it is ready; when not, notes whether its API answers already.
		 */
		boolean readyNoting() {
			if (ready()) {
				return true;
			}
			try {
				if (get("/user/00000000-0000-7000-8000-000000000000").statusCode() == 404) {
					this.servedBeforeReadiness.set(true);
				}
			}
			catch (IOException ex) {
				// Not listening yet.
			}
			return false;
		}

		boolean servedBeforeReady() {
			return this.servedBeforeReadiness.get();
		}

		boolean ready() {
			try {
				return management("/actuator/health/readiness").statusCode() == 200;
			}
			catch (IOException ex) {
				return false;
			}
		}

		HttpResponse<String> get(String path) throws IOException {
			return send(HttpRequest.newBuilder(this.api.resolve(path)).timeout(Duration.ofSeconds(10)).build());
		}

		HttpResponse<String> management(String path) throws IOException {
			return send(
					HttpRequest.newBuilder(this.managementUri.resolve(path)).timeout(Duration.ofSeconds(10)).build());
		}

		static HttpResponse<String> send(HttpRequest request) throws IOException {
			try {
				return http.send(request, HttpResponse.BodyHandlers.ofString());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException(ex);
			}
		}

		private static int freePort() throws IOException {
			try (ServerSocket socket = new ServerSocket(0)) {
				return socket.getLocalPort();
			}
		}

	}

	/**
	 * Point reads and searches (two clients) and a registration every 500 ms, each answer
	 * recorded.
	 */
	private static final class Load {

		private final URI api;

		private final List<Result> results = Collections.synchronizedList(new ArrayList<>());

		private final List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());

		private final List<String> names = Collections.synchronizedList(new ArrayList<>());

		private volatile List<String> seeded = List.of();

		private volatile long allowedFrom = Long.MAX_VALUE;

		private volatile long allowedUntil = Long.MIN_VALUE;

		private volatile boolean stopping;

		private final List<Thread> threads = new ArrayList<>();

		Load(URI api) {
			this.api = api;
		}

		void start() {
			for (Runnable client : new Runnable[] { this::read, this::read, this::register }) {
				Thread thread = new Thread(client, "lifecycle-load");
				thread.setDaemon(true);
				thread.start();
				this.threads.add(thread);
			}
		}

		void stop() throws InterruptedException {
			this.stopping = true;
			for (Thread thread : this.threads) {
				thread.join(30_000);
			}
		}

		void seeded(List<String> ids) {
			this.seeded = List.copyOf(ids);
		}

		/**
		 * Registrations that overlap this window may get the failover's documented 503.
		 */
		void allowRefusedRegistrations(long from, long until) {
			this.allowedFrom = from;
			this.allowedUntil = until;
		}

		boolean acknowledgedSince(long millis) {
			synchronized (this.results) {
				return this.results.stream()
					.anyMatch((r) -> r.kind.equals("register") && r.status == 200 && r.start > millis);
			}
		}

		List<String> acknowledged() {
			synchronized (this.acknowledged) {
				return List.copyOf(this.acknowledged);
			}
		}

		List<Result> failures() {
			synchronized (this.results) {
				return this.results.stream().filter((r) -> r.status != 200 && !allowed(r)).toList();
			}
		}

		private boolean allowed(Result r) {
			return r.kind.equals("register") && r.status == 503
					&& (r.detail.equals("Database unavailable") || r.detail.equals("Outcome unknown"))
					&& r.end >= this.allowedFrom && r.start <= this.allowedUntil;
		}

		private void read() {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (!this.stopping) {
				// Once there are seeded ids, only those: every node has them long before.
				List<String> pool = this.seeded.isEmpty() ? acknowledged() : this.seeded;
				if (!pool.isEmpty()) {
					String path;
					String kind;
					if (random.nextInt(10) == 0 && !this.names.isEmpty()) {
						String name = this.names.get(random.nextInt(this.names.size()));
						path = "/user/search?first_name=" + name.substring(0, 2) + "&last_name="
								+ name.substring(name.indexOf(' ') + 1).substring(0, 2) + "&limit=10";
						kind = "search";
					}
					else {
						path = "/user/" + pool.get(random.nextInt(pool.size()));
						kind = "read";
					}
					send(kind, HttpRequest.newBuilder(this.api.resolve(path)).timeout(Duration.ofSeconds(10)).build());
				}
				pause(40);
			}
		}

		private void register() {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (!this.stopping) {
				String first = "Lifecycle" + letters(random);
				String last = "Tester" + letters(random);
				String body = """
						{"first_name":"%s","second_name":"%s","birthdate":"1991-02-03","password":"lifecycle-password"}"""
					.formatted(first, last);
				HttpResponse<String> response = send("register",
						HttpRequest.newBuilder(this.api.resolve("/user/register"))
							.header("Content-Type", "application/json")
							.POST(HttpRequest.BodyPublishers.ofString(body))
							.timeout(Duration.ofSeconds(20))
							.build());
				if (response != null && response.statusCode() == 200) {
					this.acknowledged.add(json.readTree(response.body()).get("user_id").asString());
					this.names.add(first + " " + last);
				}
				pause(500);
			}
		}

		private HttpResponse<String> send(String kind, HttpRequest request) {
			long start = System.currentTimeMillis();
			try {
				HttpResponse<String> response = Service.send(request);
				String detail = "";
				if (response.statusCode() != 200) {
					try {
						detail = json.readTree(response.body()).path("title").asString("");
					}
					catch (RuntimeException ex) {
						detail = response.body();
					}
				}
				this.results.add(new Result(kind, start, System.currentTimeMillis(), response.statusCode(), detail));
				return response;
			}
			catch (IOException ex) {
				this.results.add(new Result(kind, start, System.currentTimeMillis(), 0, ex.toString()));
				return null;
			}
		}

		private static String letters(ThreadLocalRandom random) {
			StringBuilder text = new StringBuilder();
			for (int i = 0; i < 6; i++) {
				text.append((char) ('a' + random.nextInt(26)));
			}
			return text.toString();
		}

		private static void pause(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	/** One request of the load: kind, when it was sent and answered, status, title. */
	private record Result(String kind, long start, long end, int status, String detail) {

	}

}
