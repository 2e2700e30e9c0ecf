package dev.highload.profiles.routing;

import tools.jackson.databind.JsonNode;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.cluster.EmbeddedCluster;
import dev.highload.profiles.cluster.NodeFaults;
import dev.highload.profiles.database.DatabaseProperties;
import dev.highload.profiles.database.NodePools;
import dev.highload.profiles.database.ReadPools;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * Issue 5, "Node faults": one test per row, each against the running embedded cluster
 * with a bounded number of HTTP requests during the fault. Each prints its figures on a
 * line starting with {@code [fault-figures]} (docs/reports/reliability.md records them).
 * Every test leaves the cluster as it found it: nodes resumed and started, both replicas
 * streaming as quorum standbys, the pools' connections to the faulted nodes replaced.
 */
@IntegrationTest
class NodeFaultsIntegrationTests {

	private static final List<String> NODES = List.of("primary", "replica1", "replica2");

	/** Read statements of the API: the point read, the credential read and the search. */
	private static final String SELECTS = "%users u%";

	/** Generous on a loaded 2-core machine; the figures say what it really took. */
	private static final long MAX_READ_MILLIS = 15_000;

	@LocalServerPort
	int port;

	@LocalManagementPort
	int managementPort;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	ObjectProvider<EmbeddedCluster> embedded;

	@Autowired
	NodePools nodePools;

	@Autowired
	@Qualifier("writeDataSource")
	HikariDataSource writePool;

	@Autowired
	DatabaseProperties properties;

	@Autowired
	MeterRegistry meterRegistry;

	NodeFaults faults;

	ApiClient api;

	List<UUID> ids;

	@BeforeEach
	void prepare() throws Exception {
		EmbeddedCluster cluster = this.embedded.getIfAvailable();
		assumeTrue(cluster != null, "node faults are injected into the embedded cluster's processes");
		this.faults = new NodeFaults(cluster);
		this.api = new ApiClient(this.port);
		this.ids = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			this.ids.add(this.api.register("Fault", "Reader", "secret-password"));
		}
		awaitQuorum(Duration.ofSeconds(60));
		awaitFullPools(ReadPools.all(this.nodePools));
		// Every pooled read connection has been used: both replicas hold some.
		Load warm = drive(64, 8, (i) -> read());
		assertThat(warm.errors()).as("reads before the fault").isZero();
	}

	@AfterEach
	void restore() throws Exception {
		if (this.faults == null) {
			return;
		}
		try {
			this.faults.heal();
			for (String replica : List.of("replica1", "replica2")) {
				this.cluster.execute(replica, "SELECT pg_wal_replay_resume()");
			}
			awaitQuorum(Duration.ofSeconds(90));
		}
		finally {
			// Connections opened before the fault to a node that was down are dead; the
			// tests that follow must not meet them.
			List<HikariDataSource> pools = new ArrayList<>(ReadPools.all(this.nodePools));
			pools.add(this.writePool);
			for (HikariDataSource pool : pools) {
				if (pool.getHikariPoolMXBean() != null) {
					pool.getHikariPoolMXBean().softEvictConnections();
				}
			}
		}
		awaitFullPools(ReadPools.all(this.nodePools));
	}

	@Test
	void oneReplicaKilledReadsAndWritesGoOn() throws Exception {
		this.faults.kill("replica1");
		long killed = System.nanoTime();
		// While the pooled connections to replica1 are found dead one by one.
		Load during = drive(160, 8, this::readOrWrite);
		// Once they are gone.
		Load after = drive(160, 8, this::readOrWrite);

		during.assertEveryErrorIs503WithRetryAfter();
		assertThat(during.writeErrors()).as("writes: replica2 alone satisfies ANY 1").isZero();
		assertThat(during.errors()).as("reads on connections pooled to replica1")
			.isLessThanOrEqualTo(this.properties.readPool().maximumSize());
		assertThat(during.maxMillis()).isLessThan(MAX_READ_MILLIS);
		assertThat(after.errors()).as("once the dead connections are gone").isZero();
		// Reads go on elsewhere: the service stays healthy, the nodes indicator says why.
		assertThat(new ApiClient(this.managementPort).get("/actuator/health").status()).as("health with a replica down")
			.isEqualTo(200);

		long restarting = System.nanoTime();
		this.faults.start("replica1");
		awaitQuorum(Duration.ofSeconds(90));
		figures("one replica killed", during, after, "killed at +0 ms, both replicas quorum again "
				+ millisSince(restarting) + " ms after restart (outage " + millisSince(killed) + " ms)");
	}

	@Test
	void bothReplicasStoppedWritesFailInBoundedTimeReadsGoOnFromThePrimary() throws Exception {
		this.faults.stop("replica1");
		this.faults.stop("replica2");

		Map<String, Long> before = calls(List.of("primary"));
		Load reads = drive(80, 4, (i) -> read());
		Load readsAfter = drive(40, 4, (i) -> read());
		long onPrimary = calls(List.of("primary")).get("primary") - before.get("primary");
		reads.assertEveryErrorIs503WithRetryAfter();
		assertThat(reads.errors()).isLessThanOrEqualTo(this.properties.readPool().maximumSize());
		assertThat(reads.maxMillis()).isLessThan(MAX_READ_MILLIS);
		assertThat(readsAfter.errors()).isZero();
		assertThat(onPrimary).as("reads served by the primary").isGreaterThanOrEqualTo(readsAfter.ok());

		// Writes: the commit waits for a standby that is not there, until the deadline.
		List<String> names = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			names.add(ApiClient.uniqueName());
		}
		Load writes = drive(6, 3, (i) -> write(names.get(i)));
		long writeTimeout = this.properties.writeTimeout().toMillis();
		assertThat(writes.results()).allSatisfy((result) -> {
			assertThat(result.status()).as("never 200 without a standby").isEqualTo(503);
			assertThat(result.retryAfter()).isTrue();
			assertThat(result.title()).isEqualTo("Outcome unknown");
			// The deadline, the hashing and the load: bounded, not a hang.
			assertThat(result.millis()).isBetween(writeTimeout, writeTimeout + 10_000);
		});
		// "Outcome unknown" is what it says: committed on the primary, not confirmed.
		assertThat(count("primary", names)).isEqualTo(names.size());

		long restarting = System.nanoTime();
		this.faults.start("replica1");
		long started = millisSince(restarting);
		Load untilWritten = untilOk(Duration.ofSeconds(60), (i) -> write(ApiClient.uniqueName()));
		long writesBack = millisSince(restarting);
		// And they reach the replica that returned, like every committed row.
		await("'Outcome unknown' rows replicated to replica1").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> count("replica1", names) >= names.size());
		// Reads return to the replicas by themselves: connections opened on the primary
		// are retired after the read pool's max lifetime.
		Map<String, Long> replicaBefore = calls(List.of("replica1"));
		Load untilOnReplica = untilTrue(Duration.ofSeconds(150), () -> read(),
				() -> calls(List.of("replica1")).get("replica1") > replicaBefore.get("replica1"));
		long readsBack = millisSince(restarting);
		assertThat(untilOnReplica.errors()).isZero();

		figures("both replicas stopped", reads, readsAfter, "writes " + writes.summary() + "; replica1 up after "
				+ started + " ms, first 200 write " + writesBack + " ms after its restart (" + untilWritten.summary()
				+ " while recovering), first read on replica1 " + readsBack + " ms after its restart; " + names.size()
				+ " of " + names.size() + " 'Outcome unknown' rows found on the primary, then on replica1");
	}

	@Test
	void primaryStoppedReadsGoOnWritesAre503() throws Exception {
		this.faults.stop("primary");
		long stopped = System.nanoTime();
		Load during = drive(132, 4, (i) -> (i % 11 == 10) ? write(ApiClient.uniqueName()) : read());

		assertThat(during.readErrors()).as("reads on the replicas").isZero();
		assertThat(during.maxReadMillis()).isLessThan(MAX_READ_MILLIS);
		assertThat(during.writes()).isEqualTo(12);
		assertThat(during.results()).filteredOn(Result::write).allSatisfy((result) -> {
			assertThat(result.status()).isEqualTo(503);
			assertThat(result.retryAfter()).isTrue();
			assertThat(result.title()).isEqualTo("Database unavailable");
			// The write pool's connection timeout (3 s), plus hashing and load.
			assertThat(result.millis()).isLessThan(this.properties.writePool().connectionTimeout().toMillis() + 7_000);
		});

		long restarting = System.nanoTime();
		this.faults.start("primary");
		Load untilWritten = untilOk(Duration.ofSeconds(60), (i) -> write(ApiClient.uniqueName()));
		long writesBack = millisSince(restarting);
		awaitQuorum(Duration.ofSeconds(90));
		figures("primary stopped", during, untilWritten, "outage " + millisSince(stopped) + " ms; first 200 write "
				+ writesBack + " ms after the primary's restart");
	}

	@Test
	void blackHoledReplicaReadsMoveToTheOtherNode() throws Exception {
		Load during;
		Load after;
		long onReplica2;
		long thawed;
		try {
			this.faults.freeze("replica1");
			during = drive(120, 4, this::readOrWrite);
			Map<String, Long> before = calls(List.of("replica2"));
			after = drive(80, 4, (i) -> read());
			onReplica2 = calls(List.of("replica2")).get("replica2") - before.get("replica2");
		}
		finally {
			this.faults.thaw();
			thawed = System.nanoTime();
		}
		during.assertEveryErrorIs503WithRetryAfter();
		assertThat(during.errors()).as("reads on connections pooled to the frozen replica")
			.isLessThanOrEqualTo(this.properties.readPool().maximumSize());
		assertThat(during.writeErrors()).as("writes: replica2 alone satisfies ANY 1").isZero();
		// A read on the frozen node ends at the read pool's socket timeout, not never.
		assertThat(during.maxMillis()).isLessThan(MAX_READ_MILLIS);
		assertThat(after.errors()).as("the frozen replica's connections are evicted").isZero();
		assertThat(onReplica2).as("reads moved to replica2").isGreaterThanOrEqualTo(after.ok());
		awaitQuorum(Duration.ofSeconds(90));
		figures("one replica black-holed (SIGSTOP)", during, after,
				"read socket timeout " + this.properties.readPool().socketTimeout().toMillis()
						+ " ms; both replicas quorum again " + millisSince(thawed) + " ms after SIGCONT");
	}

	@Test
	void laggingReplicaReadsStayFastAndSeeEveryWrite() throws Exception {
		Load during;
		double fallbacks;
		try {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_pause()");
			// ANY 1: replica2 alone applies these; replica1 lags behind all of them.
			List<UUID> fresh = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				fresh.add(this.api.register("Fault", "Lagging", "secret-password"));
			}
			double before = this.meterRegistry.get("profiles.reads.rechecked").counter().count();
			during = drive(160, 8, (i) -> read(fresh.get(i % fresh.size())));
			fallbacks = this.meterRegistry.get("profiles.reads.rechecked").counter().count() - before;
		}
		finally {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_resume()");
		}
		assertThat(during.errors()).as("a miss on replica1 is read again on a node that has the id").isZero();
		assertThat(during.maxMillis()).isLessThan(MAX_READ_MILLIS);
		assertThat(fallbacks).as("reads that met the lagging replica").isPositive();
		long resumed = System.nanoTime();
		awaitQuorum(Duration.ofSeconds(90));
		figures("one replica lagging (replay paused)", during, null,
				String.format(Locale.ROOT, "%.0f reads missed on replica1 and were read again on replica2; "
						+ "caught up %d ms after replay resumed", fallbacks, millisSince(resumed)));
	}

	private Result readOrWrite(int i) {
		return (i % 8 == 7) ? write(ApiClient.uniqueName()) : read();
	}

	private Result read() {
		return read(this.ids.get(ThreadLocalRandom.current().nextInt(this.ids.size())));
	}

	private Result read(UUID id) {
		return Result.of(false, () -> this.api.get("/user/" + id));
	}

	private Result write(String secondName) {
		return Result.of(true,
				() -> this.api.post("/user/register", ApiClient.registration("Fault", secondName, "secret-password")));
	}

	/** Runs the requests on a few client threads; results in request order. */
	private static Load drive(int count, int concurrency, IntFunction<Result> request) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(concurrency);
		try {
			List<Future<Result>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				int n = i;
				futures.add(clients.submit(() -> request.apply(n)));
			}
			List<Result> results = new ArrayList<>();
			for (Future<Result> future : futures) {
				results.add(future.get());
			}
			return new Load(results);
		}
		finally {
			clients.shutdownNow();
		}
	}

	/** One request after another, 200 ms apart, until one answers 200. */
	private static Load untilOk(Duration timeout, IntFunction<Result> request) throws InterruptedException {
		List<Result> results = new ArrayList<>();
		long deadline = System.nanoTime() + timeout.toNanos();
		for (int i = 0;; i++) {
			Result result = request.apply(i);
			results.add(result);
			if (result.status() == 200) {
				return new Load(results);
			}
			assertThat(System.nanoTime()).as("a 200 within " + timeout + ", got " + results).isLessThan(deadline);
			Thread.sleep(200);
		}
	}

	/** Requests, 200 ms apart, until the condition holds. */
	private static Load untilTrue(Duration timeout, Supplier<Result> request, Check condition) throws Exception {
		List<Result> results = new ArrayList<>();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			results.add(request.get());
			if (condition.holds()) {
				return new Load(results);
			}
			assertThat(System.nanoTime()).as("condition within " + timeout).isLessThan(deadline);
			Thread.sleep(200);
		}
	}

	@FunctionalInterface
	private interface Check {

		boolean holds() throws Exception;

	}

	private static void figures(String row, Load during, Load after, String recovery) {
		System.out.printf(Locale.ROOT, "[fault-figures] %s | during: %s | after: %s | %s%n", row, during.summary(),
				(after != null) ? after.summary() : "-", recovery);
	}

	private static long millisSince(long nanos) {
		return (System.nanoTime() - nanos) / 1_000_000;
	}

	/**
	 * Waits until both replicas stream as quorum standbys and have replayed everything.
	 */
	private void awaitQuorum(Duration timeout) {
		await("both replicas quorum again").atMost(timeout)
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptionsInstanceOf(SQLException.class)
			.untilAsserted(() -> {
				try (Connection c = this.cluster.connectAsSuperuser("primary", "postgres");
						Statement s = c.createStatement();
						ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE state = 'streaming' "
								+ "AND sync_state = 'quorum' AND replay_lsn = pg_current_wal_lsn()), "
								+ "string_agg(application_name || ' ' || state || ' ' || sync_state, ', ') "
								+ "FROM pg_stat_replication")) {
					rs.next();
					assertThat(rs.getInt(1)).as("quorum standbys caught up, seen: " + rs.getString(2)).isEqualTo(2);
				}
			});
	}

	private static void awaitFullPools(List<HikariDataSource> pools) {
		for (HikariDataSource pool : pools) {
			await("a full pool " + pool.getPoolName()).atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> pool.getHikariPoolMXBean().getTotalConnections() >= pool.getMaximumPoolSize());
		}
	}

	private Map<String, Long> calls(List<String> nodes) throws SQLException {
		Map<String, Long> calls = new HashMap<>();
		for (String node : nodes) {
			assertThat(NODES).contains(node);
			calls.put(node, this.cluster.statementCalls(node, SELECTS));
		}
		return calls;
	}

	private long count(String node, List<String> secondNames) throws SQLException {
		// Unique letters-only names: a comma cannot occur in them.
		return Long.parseLong(this.cluster.queryValue(node, "profiles",
				"SELECT count(*) FROM users WHERE second_name = ANY (string_to_array(?, ','))",
				String.join(",", secondNames)));
	}

	/**
	 * One request as the client saw it; status -1 when the client gave up (30 s).
	 */
	record Result(boolean write, int status, long millis, boolean retryAfter, String title) {

		static Result of(boolean write, Supplier<ApiClient.Response> call) {
			long start = System.nanoTime();
			try {
				ApiClient.Response response = call.get();
				long millis = (System.nanoTime() - start) / 1_000_000;
				String title = null;
				if (response.status() != 200 && response.contentType().contains("json")) {
					JsonNode node = response.json().get("title");
					title = (node != null) ? node.asString() : null;
				}
				return new Result(write, response.status(), millis,
						response.headers().firstValue("Retry-After").isPresent(), title);
			}
			catch (IllegalStateException ex) {
				return new Result(write, -1, (System.nanoTime() - start) / 1_000_000, false, ex.toString());
			}
		}

	}

	/** A batch of requests and what came back. */
	record Load(List<Result> results) {

		int ok() {
			return (int) this.results.stream().filter((r) -> r.status() == 200).count();
		}

		int errors() {
			return this.results.size() - ok();
		}

		int writes() {
			return (int) this.results.stream().filter(Result::write).count();
		}

		int writeErrors() {
			return (int) this.results.stream().filter((r) -> r.write() && r.status() != 200).count();
		}

		int readErrors() {
			return errors() - writeErrors();
		}

		long maxMillis() {
			return this.results.stream().mapToLong(Result::millis).max().orElse(0);
		}

		long maxReadMillis() {
			return this.results.stream().filter((r) -> !r.write()).mapToLong(Result::millis).max().orElse(0);
		}

		void assertEveryErrorIs503WithRetryAfter() {
			assertThat(this.results).filteredOn((r) -> r.status() != 200).allSatisfy((r) -> {
				assertThat(r.status()).isEqualTo(503);
				assertThat(r.retryAfter()).isTrue();
			});
		}

		String summary() {
			int total = this.results.size();
			return String.format(Locale.ROOT,
					"%d requests (%d reads, %d writes), %d ok = %.1f %%, %d errors (%d on writes), max %d ms", total,
					total - writes(), writes(), ok(), (total == 0) ? 0.0 : 100.0 * ok() / total, errors(),
					writeErrors(), maxMillis());
		}

	}

}
