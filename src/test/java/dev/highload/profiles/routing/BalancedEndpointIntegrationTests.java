package dev.highload.profiles.routing;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.ProfilesApplication;
import dev.highload.profiles.ServiceStandIn;
import dev.highload.profiles.database.DatabaseProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code app.db.routing=balanced} behind stand-ins for CloudNativePG's Services
 * ({@link ServiceStandIn}): the replicas' address balances each new connection over both
 * replicas, the primary's follows whichever node is primary. A second instance of the
 * service in this JVM, on the shared cluster, reads through them while one replica's
 * replay is paused: every client writes and then reads with the token each answer gave
 * it, and must see its own writes and never less than it saw before. Prints its figures
 * on a line starting with {@code [balanced-figures]}.
 */
@IntegrationTest
class BalancedEndpointIntegrationTests {

	private static final String TOKEN = "Consistency-Token";

	private static final Duration PAUSED = Duration.ofSeconds(10);

	private static final int CLIENTS = 8;

	@Autowired
	DatabaseProperties database;

	@Autowired
	ClusterNodes cluster;

	@Test
	void withOneReplicaPausedEveryClientSeesItsWritesAndNeverLess() throws Exception {
		List<InetSocketAddress> replicas = this.database.replicas().stream().map(ServiceStandIn::address).toList();
		try (ServiceStandIn ro = new ServiceStandIn("ro", ServiceStandIn.roundRobin(replicas));
				ServiceStandIn rw = new ServiceStandIn("rw",
						ServiceStandIn.primaryOf(this.database.nodes(), this.database.database(),
								this.database.username(), this.database.password()));
				ConfigurableApplicationContext service = startBalanced(rw.address(), ro.address())) {
			ApiClient api = new ApiClient(port(service));
			MeterRegistry meters = service.getBean(MeterRegistry.class);
			// Both replicas hold connections of the read pool.
			assertThat(ro.acceptedByBackend()).as("connections through the -ro stand-in by replica port").hasSize(2);
			for (int i = 0; i < 20; i++) {
				assertThat(api.get("/user/" + api.register("Balanced", "Warm", "secret-password")).status())
					.isEqualTo(200);
			}
			double behindBefore = count(meters, "profiles.reads.behind");
			double checkedBefore = count(meters, "profiles.reads.checked");
			List<Client> clients;
			String paused = pausedReplica();
			this.cluster.execute(paused, "SELECT pg_wal_replay_pause()");
			try {
				clients = drive(api);
			}
			finally {
				this.cluster.execute(paused, "SELECT pg_wal_replay_resume()");
			}
			long reads = clients.stream().mapToLong((c) -> c.reads).sum();
			long writes = clients.stream().mapToLong((c) -> c.ids.size()).sum();
			double behind = count(meters, "profiles.reads.behind") - behindBefore;
			double checked = count(meters, "profiles.reads.checked") - checkedBefore;
			List<String> violations = clients.stream().flatMap((c) -> c.violations.stream()).toList();
			System.out.printf(Locale.ROOT,
					"[balanced-figures] %s paused %d s, %d clients: %d registrations, %d reads with tokens, "
							+ "%d missed a write seen or made before; read on the primary (behind) %.0f (%.1f %%), "
							+ "connections asked for their position first %.0f (%.1f %%); -ro connections by port %s%n",
					paused, PAUSED.toSeconds(), CLIENTS, writes, reads, violations.size(), behind, 100 * behind / reads,
					checked, 100 * checked / reads, ro.acceptedByBackend());
			assertThat(violations).as("reads that missed a write their client had made or seen").isEmpty();
			assertThat(writes).as("registrations while the replica was paused").isGreaterThan(CLIENTS);
			assertThat(behind).as("reads that met the paused replica and were read on the primary").isPositive();
		}
	}

	/**
	 * Each client registers, reads what it wrote with the token the registration gave it,
	 * and reads one of its earlier users with the token of its last answer, until the
	 * pause is over.
	 */
	private static List<Client> drive(ApiClient api) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(CLIENTS);
		try {
			long end = System.nanoTime() + PAUSED.toNanos();
			List<Future<Client>> futures = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				futures.add(executor.submit(() -> {
					Client client = new Client();
					while (System.nanoTime() < end) {
						client.round(api);
					}
					return client;
				}));
			}
			List<Client> clients = new ArrayList<>();
			for (Future<Client> future : futures) {
				clients.add(future.get());
			}
			return clients;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private ConfigurableApplicationContext startBalanced(String rw, String ro) {
		return new SpringApplicationBuilder(ProfilesApplication.class).profiles("test")
			.run("--app.cluster.enabled=false", "--app.db.nodes=" + rw, "--app.db.replicas=" + ro,
					"--app.db.routing=balanced", "--app.db.database=" + this.database.database(),
					"--app.db.username=" + this.database.username(), "--app.db.password=" + this.database.password(),
					"--app.db.write-pool.maximum-size=4", "--app.db.read-pool.maximum-size=4",
					"--spring.flyway.enabled=false", "--server.port=0", "--management.server.port=0",
					// With the embedded cluster off, the service needs a key of its own.
					"--app.auth.token-keys=it:" + Base64.getEncoder().encodeToString(randomKey()));
	}

	/** A replica that is a quorum standby now: pausing it leaves the other to commit. */
	private String pausedReplica() throws SQLException {
		for (String node : List.of("replica1", "replica2")) {
			if ("t".equals(this.cluster.queryValue(node, "postgres", "SELECT pg_is_in_recovery()"))) {
				return node;
			}
		}
		throw new IllegalStateException("No replica in recovery");
	}

	private static byte[] randomKey() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		return key;
	}

	private static int port(ConfigurableApplicationContext context) {
		return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
	}

	private static double count(MeterRegistry meters, String name) {
		return meters.get(name).counter().count();
	}

	/** One client: the users it registered, and the token of its last answer. */
	private static final class Client {

		final List<UUID> ids = new ArrayList<>();

		final List<String> violations = new ArrayList<>();

		long reads;

		String token;

		void round(ApiClient api) {
			ApiClient.Response registered = (this.token != null)
					? api.post("/user/register",
							ApiClient.registration("Balanced", ApiClient.uniqueName(), "pw-secret1"), TOKEN, this.token)
					: api.post("/user/register",
							ApiClient.registration("Balanced", ApiClient.uniqueName(), "pw-secret1"));
			assertThat(registered.status()).as("registration: %s", registered.body()).isEqualTo(200);
			this.token = registered.headers().firstValue(TOKEN).orElseThrow();
			UUID id = UUID.fromString(registered.json().get("user_id").asString());
			this.ids.add(id);
			read(api, id, "its own write");
			read(api, this.ids.get(ThreadLocalRandom.current().nextInt(this.ids.size())), "an earlier user of its own");
		}

		private void read(ApiClient api, UUID id, String what) {
			ApiClient.Response read = api.get("/user/" + id, TOKEN, this.token);
			this.reads++;
			if (read.status() != 200) {
				this.violations.add(what + " " + id + ": " + read.status());
				return;
			}
			this.token = read.headers().firstValue(TOKEN).orElseThrow();
		}

	}

}
