package dev.highload.profiles.routing;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.user.UuidV7;
import dev.highload.profiles.consistency.ConsistencyTokens;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consistency tokens end to end (docs/consistency.md): what a client that sends back the
 * token of its write is shown while one replica lags, what one that does not is shown,
 * and what a flood of unknown ids costs the primary.
 */
@IntegrationTest
class ConsistencyTokenIntegrationTests {

	private static final String TOKEN = "Consistency-Token";

	/** Every statement that reads the users table; inserts and position probes do not. */
	private static final String USER_READS = "%users u%";

	/**
	 * How long PostgreSQL's idle backends may keep their counts before reporting them.
	 */
	private static final long STATS_SETTLE_MILLIS = 11_000;

	@LocalServerPort
	int port;

	@Autowired
	ClusterNodes cluster;

	@Autowired
	MeterRegistry meterRegistry;

	@Autowired
	ConsistencyTokens tokens;

	@Autowired
	Nodes nodes;

	ApiClient api;

	@BeforeEach
	void client() {
		this.api = new ApiClient(this.port);
	}

	@Test
	void withItsWritesTokenASearchFindsTheNewUserEveryTimeWhileAReplicaLags() throws Exception {
		int rounds = 200;
		int foundWithToken = 0;
		int missedWithoutToken = 0;
		int loginsWithToken = 0;
		double waitedBefore = counter("profiles.reads.waited");
		double primaryBefore = counter("profiles.reads.primary");
		String lastToken;
		String lastName;
		try {
			// ANY 1: replica2 alone applies these registrations; replica1 lags behind
			// every one of them.
			this.cluster.execute("replica1", "SELECT pg_wal_replay_pause()");
			String token = null;
			String name = null;
			for (int i = 0; i < rounds; i++) {
				name = ApiClient.uniqueName();
				ApiClient.Response registered = this.api.post("/user/register",
						ApiClient.registration("Token", name, "secret-password"));
				assertThat(registered.status()).isEqualTo(200);
				token = registered.headers().firstValue(TOKEN).orElseThrow();
				String cookie = "consistency_token=" + token + ";";
				assertThat(registered.headers().allValues("Set-Cookie"))
					.anySatisfy((header) -> assertThat(header).startsWith(cookie));
				String id = registered.json().get("user_id").asString();
				if (search(name, token).contains(id)) {
					foundWithToken++;
				}
				if (!search(name, null).contains(id)) {
					missedWithoutToken++;
				}
				if (i % 20 == 0 && login(id, token) == 200) {
					loginsWithToken++;
				}
			}
			lastToken = token;
			lastName = name;
		}
		finally {
			this.cluster.execute("replica1", "SELECT pg_wal_replay_resume()");
		}
		double waited = counter("profiles.reads.waited") - waitedBefore;
		double onPrimary = counter("profiles.reads.primary") - primaryBefore;
		System.out.printf(Locale.ROOT,
				"[consistency-figures] replica1 paused: %d/%d searches with the write's token found the new user "
						+ "(%d logins of %d with it succeeded), %d/%d without a token missed it; reads that asked "
						+ "the replicas for their positions %.0f, served by the primary %.0f%n",
				foundWithToken, rounds, loginsWithToken, rounds / 20, missedWithoutToken, rounds, waited, onPrimary);
		assertThat(foundWithToken).as("searches with the token that found the new user").isEqualTo(rounds);
		assertThat(loginsWithToken).as("logins with the token").isEqualTo(rounds / 20);
		assertThat(missedWithoutToken).as("searches without a token that met the lagging replica").isPositive();

		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(60));
		long primaryReads = calls("primary", USER_READS);
		for (int i = 0; i < 40; i++) {
			assertThat(search(lastName, lastToken)).isNotEqualTo("[]");
		}
		assertThat(calls("primary", USER_READS) - primaryReads)
			.as("searches with the token once both replicas caught up, on the primary")
			.isZero();
	}

	@Test
	void aFloodOfUnknownIdsNeverReachesThePrimary() throws Exception {
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(60));
		// Warm: both replicas have served reads, so the router knows where they are.
		for (int i = 0; i < 20; i++) {
			assertThat(this.api.get("/user/" + oldId()).status()).isEqualTo(404);
		}
		int requests = 2000;
		// PostgreSQL's backends report their transaction counts at most once a second,
		// and an idle one only after 10 s: both windows run 13 s past their start, so
		// each holds what was done in it.
		long quietStarted = System.nanoTime();
		long quietCommits = commits("primary");
		Thread.sleep(STATS_SETTLE_MILLIS + 2000);
		long quietDelta = commits("primary") - quietCommits;
		double quietSeconds = (System.nanoTime() - quietStarted) / 1e9;

		long readsBefore = calls("primary", USER_READS);
		double recheckedBefore = counter("profiles.reads.rechecked");
		double primaryBefore = counter("profiles.reads.primary");
		long commitsBefore = commits("primary");
		long started = System.nanoTime();
		ExecutorService clients = Executors.newFixedThreadPool(8);
		try {
			List<Future<Integer>> statuses = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				statuses.add(clients.submit(() -> this.api.get("/user/" + oldId()).status()));
			}
			for (Future<Integer> status : statuses) {
				assertThat(status.get()).isEqualTo(404);
			}
		}
		finally {
			clients.shutdownNow();
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		long readsDelta = calls("primary", USER_READS) - readsBefore;
		Thread.sleep(STATS_SETTLE_MILLIS);
		long commitsDelta = commits("primary") - commitsBefore;
		double windowSeconds = (System.nanoTime() - started) / 1e9;
		System.out.printf(Locale.ROOT,
				"[consistency-figures] 404 flood: %d GETs of unknown ids made an hour ago in %.1f s; on the "
						+ "primary: %d reads of users, %d transactions in the %.1f s from the flood's start "
						+ "(%d in %.1f s without a flood: the node monitor and the metrics); rechecked %.0f, served "
						+ "by the primary %.0f%n",
				requests, seconds, readsDelta, commitsDelta, windowSeconds, quietDelta, quietSeconds,
				counter("profiles.reads.rechecked") - recheckedBefore,
				counter("profiles.reads.primary") - primaryBefore);
		assertThat(readsDelta).as("reads of users on the primary").isZero();
		assertThat(counter("profiles.reads.rechecked") - recheckedBefore).isZero();
		assertThat(counter("profiles.reads.primary") - primaryBefore).isZero();
		// The primary's transactions in the flood's window: the background's rate,
		// nothing per request (a read per request would be 2,000 more).
		assertThat(commitsDelta).as("transactions on the primary in the flood's window")
			.isLessThanOrEqualTo(Math.round(quietDelta * windowSeconds / quietSeconds) + 20);
	}

	@Test
	void everyReadAnswersItsPositionAndTheCookieMovesForward() {
		ApiClient.Response registered = this.api.post("/user/register",
				ApiClient.registration("Token", ApiClient.uniqueName(), "secret-password"));
		String written = registered.headers().firstValue(TOKEN).orElseThrow();
		String id = registered.json().get("user_id").asString();
		ApiClient.Response read = this.api.get("/user/" + id, "Cookie", "consistency_token=" + written);
		assertThat(read.status()).isEqualTo(200);
		String seen = read.headers().firstValue(TOKEN).orElseThrow();
		assertThat(this.tokens.offset(seen)).as(seen + " after " + written)
			.isGreaterThanOrEqualTo(this.tokens.offset(written));
		ApiClient.Response unknown = this.api.get("/user/" + oldId(), TOKEN, seen);
		assertThat(unknown.status()).isEqualTo(404);
		assertThat(this.tokens.offset(unknown.headers().firstValue(TOKEN).orElseThrow()))
			.as("a 404 is a read with a position too")
			.isGreaterThanOrEqualTo(this.tokens.offset(seen));
	}

	@Test
	void aTokenBeyondThePrimaryIsTakenAsThePrimarysPosition() {
		String id = this.api.register("Token", ApiClient.uniqueName(), "secret-password").toString();
		long started = System.nanoTime();
		ApiClient.Response read = this.api.get("/user/" + id, TOKEN, this.tokens.token(Long.MAX_VALUE));
		assertThat(read.status()).isEqualTo(200);
		assertThat(this.tokens.offset(read.headers().firstValue(TOKEN).orElseThrow())).isLessThan(Long.MAX_VALUE);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
	}

	/**
	 * Issue 35: a client that names a position no replica has would send its reads to the
	 * primary; tokens are signed, so one it made up is refused before anything is read.
	 */
	@Test
	void forgedTokensAre400AndReachNoNodeWhileRegistrationsGoOn() throws Exception {
		this.cluster.awaitReplicasCaughtUp(Duration.ofSeconds(60));
		String real = this.api.get("/user/" + oldId()).headers().firstValue(TOKEN).orElseThrow();
		String mac = real.substring(real.lastIndexOf('.') + 1);
		String keyId = real.substring(17, real.lastIndexOf('.'));
		List<String> forged = List.of("7fffffffffffffff", "7fffffffffffffff." + keyId + "." + mac,
				"7fffffffffffffff." + keyId + ".AAAAAAAAAAAAAAAAAAAAAA", real.substring(0, 16) + ".other." + mac);
		long readsBefore = calls("primary", USER_READS);
		double primaryBefore = counter("profiles.reads.primary");
		int requests = 2000;
		int registered;
		ExecutorService clients = Executors.newFixedThreadPool(200);
		ExecutorService registering = Executors.newSingleThreadExecutor();
		try {
			AtomicBoolean flooded = new AtomicBoolean();
			Future<Integer> registrations = registering.submit(() -> {
				int made = 0;
				while (!flooded.get() && made < 200) {
					this.api.register("Forged", ApiClient.uniqueName(), "secret-password");
					made++;
				}
				return made;
			});
			List<Future<ApiClient.Response>> answers = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				String token = forged.get(i % forged.size());
				answers.add(clients.submit(() -> this.api.get("/user/" + oldId(), TOKEN, token)));
			}
			for (Future<ApiClient.Response> answer : answers) {
				ApiClient.Response response = answer.get();
				assertThat(response.status()).as(response.body()).isEqualTo(400);
				assertThat(response.body()).contains(TOKEN);
			}
			flooded.set(true);
			registered = registrations.get();
			assertThat(registered).isPositive();
		}
		finally {
			clients.shutdownNow();
			registering.shutdownNow();
		}
		// A registration with an Idempotency-Key looks its key up on the primary, joined
		// to
		// users; a forged token that reached a node would add up to 2,000.
		assertThat(calls("primary", USER_READS) - readsBefore).as("reads of users on the primary")
			.isLessThanOrEqualTo(registered);
		assertThat(counter("profiles.reads.primary") - primaryBefore).isZero();
		assertThat(this.nodes.readable()).as("no replica marked down").allMatch(Node::available);
	}

	@Test
	void aMalformedTokenIs400() {
		for (String token : List.of("", "xyz", "0/16B3748", "00000000016b37480", "ffffffffffffffff",
				"7fffffffffffffff")) {
			ApiClient.Response read = this.api.get("/user/" + oldId(), TOKEN, token);
			assertThat(read.status()).as(token).isEqualTo(400);
			assertThat(read.body()).contains(TOKEN);
		}
	}

	/**
	 * Another site under the same parent domain sets {@code consistency_token=nonsense;
	 * Domain=parent}: the server can neither clear that cookie nor let it answer 400 on
	 * every request, logins included. It is ignored (and a clearing cookie sent for the
	 * host's own one); the reads and the login are answered as without it (an unknown id:
	 * 404 and 401).
	 */
	@Test
	void aCookieTossedFromASiblingDomainLocksNoOneOut() {
		String tossed = "consistency_token=nonsense";
		ApiClient.Response read = this.api.get("/user/" + oldId(), "Cookie", tossed);
		assertThat(read.status()).as(read.body()).isEqualTo(404);
		assertThat(read.headers().allValues("Set-Cookie"))
			.anySatisfy((cookie) -> assertThat(cookie).startsWith("consistency_token=;").contains("Max-Age=0"));
		assertThat(this.api.get("/user/search?first_name=A&last_name=B", "Cookie", tossed).status()).isEqualTo(200);
		ApiClient.Response login = this.api.post("/login",
				ApiClient.toJson(Map.of("id", oldId().toString(), "password", "wrong-password")), "Cookie", tossed);
		assertThat(login.status()).as(login.body()).isEqualTo(401);
	}

	private String search(String lastName, String token) {
		String path = "/user/search?first_name=Token&last_name=" + URLEncoder.encode(lastName, StandardCharsets.UTF_8);
		ApiClient.Response response = (token != null) ? this.api.get(path, TOKEN, token) : this.api.get(path);
		assertThat(response.status()).isEqualTo(200);
		return response.body();
	}

	private int login(String id, String token) {
		return this.api.post("/login", ApiClient.toJson(Map.of("id", id, "password", "secret-password")), TOKEN, token)
			.status();
	}

	/** An id of the kind the service makes, from an hour ago: nobody has it. */
	private static UUID oldId() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return UuidV7.of(System.currentTimeMillis() - 3_600_000 - random.nextInt(1_000_000), random.nextLong(),
				random.nextLong());
	}

	private double counter(String name) {
		return this.meterRegistry.get(name).counter().count();
	}

	private long commits(String node) throws SQLException {
		return Long.parseLong(this.cluster.queryValue(node, "postgres",
				"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?", "profiles"));
	}

	private long calls(String node, String pattern) throws SQLException {
		return this.cluster.statementCalls(node, pattern);
	}

}
