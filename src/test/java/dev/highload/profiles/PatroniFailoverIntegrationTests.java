package dev.highload.profiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The high-availability deployment (docker-compose.ha.yml) fails over by itself: the
 * lost-write set check ({@link LostWriteCheck}) sends registrations through the load
 * balancer and both service instances while the Patroni leader's container is killed
 * (SIGKILL) right after a replication stall. Nothing here promotes anything: the test
 * only waits until Patroni has, and then compares every marker with the rows on the new
 * leader. Then the old leader's container starts again, as a restarted machine would, and
 * must rejoin as a quorum standby by itself (pg_rewind). The negative control turns
 * Patroni's synchronous mode off and must lose writes, so that the check is shown to be
 * live.
 * <p>
 * The deployment's locks are checked too: from a service container neither Patroni's REST
 * API nor etcd can be used, and clients behind HAProxy are limited each on its own.
 * <p>
 * A compose project of its own (HAProxy on free ports of the host's loopback, subnets
 * {@code -Dit.ha.db-subnet}, {@code -Dit.ha.app-subnet} and {@code -Dit.ha.edge-subnet},
 * default 172.29.200.0/24, 172.29.201.0/24 and 172.29.202.0/24, the instances at .11 and
 * .12 of the last). Needs Docker ({@link RequiresDocker}). CI runs it small;
 * {@code -Dlost-write.acknowledged} and {@code -Dlost-write.writers} set the size, as for
 * {@link ComposeFailoverIntegrationTests}. Reports go to target/patroni-failover/.
 */
@RequiresDocker
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class PatroniFailoverIntegrationTests {

	private static final int ACKNOWLEDGED = Integer.getInteger("lost-write.acknowledged", 300);

	private static final int WRITERS = Integer.getInteger("lost-write.writers", 16);

	private static final Duration STALL = Duration.ofMillis(Long.getLong("lost-write.stall-ms", 2000));

	private static final List<String> NODES = List.of("pg1", "pg2", "pg3");

	private static final Path WORK = Path.of("target/patroni-failover").toAbsolutePath();

	private static final JsonMapper json = JsonMapper.builder().build();

	/**
	 * HAProxy's HTTPS port on the host: chosen here, not by Docker, since HAProxy names
	 * it in its redirects and in the service's links.
	 */
	private static final String HTTPS_PORT = ComposeProject.freePort();

	/** HAProxy's plain-HTTP port on the host, which answers redirects alone. */
	private static final String HTTP_PORT = ComposeProject.freePort();

	private static final String EDGE_PREFIX = edgePrefix();

	/**
	 * HAProxy's registration limit for every test but the one about the per-client
	 * limits: the lost-write checks' writers all come from 127.0.0.1.
	 */
	private static final String WRITERS_REGISTRATIONS_PER_MINUTE = "1000000";

	private static final ComposeProject HA = new ComposeProject("profiles-ha-it",
			List.of(Path.of("docker-compose.ha.yml")),
			Map.ofEntries(Map.entry("APP_PORT", HTTP_PORT), Map.entry("HTTPS_PORT", HTTPS_PORT),
					Map.entry("HA_DB_SUBNET", System.getProperty("it.ha.db-subnet", "172.29.200.0/24")),
					Map.entry("HA_APP_SUBNET", System.getProperty("it.ha.app-subnet", "172.29.201.0/24")),
					Map.entry("HA_EDGE_SUBNET", System.getProperty("it.ha.edge-subnet", "172.29.202.0/24")),
					Map.entry("HA_ADMIN_SUBNET", System.getProperty("it.ha.admin-subnet", "172.29.203.0/24")),
					Map.entry("HA_EDGE_GATEWAY", EDGE_PREFIX + "1"), Map.entry("HA_RELAY_ADDRESS", EDGE_PREFIX + "10"),
					Map.entry("HA_APP1_ADDRESS", EDGE_PREFIX + "11"), Map.entry("HA_APP2_ADDRESS", EDGE_PREFIX + "12"),
					Map.entry("SECRETS_DIR", WORK.resolve("secrets").toString()),
					// Every writer reaches HAProxy from 127.0.0.1: neither the service
					// nor
					// HAProxy may limit them.
					Map.entry("REGISTRATIONS_PER_ADDRESS", "0"),
					Map.entry("LB_REGISTRATIONS_PER_MINUTE", WRITERS_REGISTRATIONS_PER_MINUTE),
					// 150 failed logins of one client pass HAProxy, 75 to each instance:
					// past each one's 50 per address, so that they reach both limits.
					Map.entry("LB_LOGINS_PER_MINUTE", "150"),
					// The slow-body test's 300 connections and the writers all come from
					// 127.0.0.1: the per-client connection limits are the shipped ones
					// only in the test about them.
					Map.entry("LB_CONNECTIONS_PER_CLIENT", "100000"),
					Map.entry("LB_CONNECTIONS_PER_CLIENT_10S", "100000")));

	/** The shipped limit of connections one client may hold (docker-compose.ha.yml). */
	private static final int SHIPPED_CONNECTIONS_PER_CLIENT = 100;

	private static boolean started;

	@BeforeAll
	static void up() throws Exception {
		HA.upAnew(Duration.ofMinutes(20), WORK);
		started = true;
		awaitMembers(NODES, Duration.ofMinutes(3));
	}

	@AfterAll
	static void down() throws Exception {
		if (started) {
			// The service's and Patroni's images are this project's own: removed with it.
			HA.compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans", "--rmi", "local");
		}
	}

	/**
	 * A service container, which reaches the nodes' PostgreSQL port, tries what an
	 * intruder in it would: Patroni's {@code PATCH /config} (turning synchronous
	 * replication off) and a write to etcd, by name and by address on the db network.
	 * Both fail. The control: the same requests from a node, on the db network, are
	 * refused without credentials (Patroni 401, etcd without a user) and Patroni's is
	 * accepted with them.
	 */
	@Test
	@Order(-2)
	void aServiceContainerCannotUsePatroniOrEtcd() throws Exception {
		String pg1 = HA.networkAddress("pg1", "db");
		String etcd1 = HA.networkAddress("etcd1", "db");
		String patch = "PATCH /config {\"synchronous_mode\":false}";
		String put = "POST /v3/kv/put {\"key\":\"L3NlcnZpY2Uv\",\"value\":\"eA==\"}";
		for (String target : List.of("pg1 8008 " + patch, pg1 + " 8008 " + patch, "etcd1 2379 " + put,
				etcd1 + " 2379 " + put)) {
			assertThat(http("app1", target, "")).as("from app1: " + target).isEqualTo("unreachable");
		}
		assertThat(fromNode("pg2", "PATCH", "https://pg1-db:8008/config", "{\"synchronous_mode\":false}", ""))
			.as("pg2 without credentials")
			.isEqualTo("401");
		assertThat(fromNode("pg2", "POST", "https://etcd1:2379/v3/kv/put",
				"{\"key\":\"L3NlcnZpY2Uv\",\"value\":\"eA==\"}", ""))
			.as("pg2 to etcd without a user")
			.matches("[45]\\d\\d");
		String credentials = Base64.getEncoder()
			.encodeToString(("patroni:" + HA.secret("patroni-restapi-password")).getBytes());
		// A change to what it already is: ttl is 20.
		assertThat(fromNode("pg2", "PATCH", "https://pg1-db:8008/config", "{\"ttl\":20}", credentials))
			.as("pg2 with the REST API's password")
			.isEqualTo("200");
	}

	/**
	 * TLS wherever the deployment crosses a network but between HAProxy and the service:
	 * HTTPS at HAProxy with the generated certificate and HSTS, plain HTTP answered with
	 * a redirect alone; every session of the service on every node, and every streaming
	 * replica, encrypted; the runtime role refused without TLS; Patroni's REST API and
	 * etcd answering HTTPS alone.
	 */
	@Test
	@Order(-5)
	void everyConnectionAcrossANetworkIsEncryptedAndPlainOnesAreRefused() throws Exception {
		ApiClient.Response registered = api().post("/user/register",
				ApiClient.registration("Tls", ApiClient.uniqueName(), "secret-password"));
		assertThat(registered.status()).as(registered.body()).isEqualTo(200);
		assertThat(registered.headers().firstValue("Strict-Transport-Security")).hasValue("max-age=31536000");
		assertThat(registered.headers().firstValue("Set-Cookie")).as("the consistency cookie, over HTTPS")
			.hasValueSatisfying((cookie) -> assertThat(cookie).contains("; Secure"));
		String id = registered.json().get("user_id").asString();

		URI plain = URI.create("http://127.0.0.1:" + HTTP_PORT);
		HttpResponse<String> redirected = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(plain.resolve("/user/get/" + id)).build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(redirected.statusCode()).isEqualTo(308);
		assertThat(redirected.headers().firstValue("Location"))
			.hasValue("https://127.0.0.1:" + HTTPS_PORT + "/user/get/" + id);
		assertThat(redirected.headers().firstValue("Strict-Transport-Security")).isEmpty();

		String runtime = "profiles";
		for (String node : NODES) {
			assertThat(HA.psql(node, "postgres",
					"SELECT count(*) FILTER (WHERE s.ssl) || '/' || count(*) FROM pg_stat_activity a "
							+ "JOIN pg_stat_ssl s USING (pid) WHERE a.usename = '" + runtime + "'"))
				.as("the service's sessions on " + node + ", encrypted/all")
				.matches("([1-9]\\d*)/\\1");
		}
		String leader = leader(NODES);
		assertThat(HA.psql(leader, "postgres",
				"SELECT count(*) FILTER (WHERE s.ssl) || '/' || count(*) FROM pg_stat_replication r "
						+ "JOIN pg_stat_ssl s USING (pid)"))
			.as("the standbys' streams from " + leader + ", encrypted/all")
			.isEqualTo("2/2");

		String password = HA.secret("app-db-password");
		assertThat(psqlFrom("app", "host=pg1 dbname=profiles user=" + runtime + " sslmode=disable", password))
			.as("the runtime role without TLS")
			.contains("pg_hba.conf rejects connection");
		assertThat(psqlFrom("app",
				"host=pg1 dbname=profiles user=" + runtime + " sslmode=verify-full sslrootcert=/ca.crt", password))
			.as("the runtime role with TLS, verified")
			.isEqualTo("ok");

		for (String url : List.of("pg1-db:8008/health", "etcd1:2379/health")) {
			assertThat(fromNode("pg2", "GET", "https://" + url, "", "")).as("https://" + url).isEqualTo("200");
			assertThat(fromNode("pg2", "GET", "http://" + url, "", "")).as("http://" + url).startsWith("error");
		}
	}

	/**
	 * The schema owner's password is in the one-shot migrate container alone, which has
	 * run and exited 0: none of the service's secret files holds it, and the owner cannot
	 * log in from the service's network, even with its password.
	 */
	@Test
	@Order(-4)
	void onlyTheMigrateContainerHoldsTheOwnersPassword() throws Exception {
		String owner = HA.secret("app-db-migration-password");
		String ownerHash = HexFormat.of()
			.formatHex(MessageDigest.getInstance("SHA-256")
				.digest(Files.readAllBytes(Path.of(HA.environment().get("SECRETS_DIR"), "app-db-migration-password"))));
		for (String app : List.of("app1", "app2")) {
			ComposeProject.Result files = HA.compose(Duration.ofSeconds(30), "exec", "-T", app, "bash", "-c",
					"for f in /run/secrets/*; do echo \"$(sha256sum < \"$f\" | cut -d' ' -f1) $f\"; done");
			assertThat(files.exitCode()).as(files.output()).isZero();
			assertThat(files.stdout()).as(app + "'s secrets")
				.contains("/run/secrets/app.db.password")
				.doesNotContain(ownerHash, "migration");
		}
		ComposeProject.Result migrate = HA.compose(Duration.ofSeconds(30), "ps", "-a", "--format",
				"{{.Service}} {{.State}} {{.ExitCode}}", "migrate");
		assertThat(migrate.stdout().strip()).isEqualTo("migrate exited 0");
		assertThat(psqlFrom("app",
				"host=pg1 dbname=profiles user=profiles_owner sslmode=verify-full sslrootcert=/ca.crt", owner))
			.as("the owner from the app network")
			.contains("pg_hba.conf rejects connection");
	}

	/**
	 * Every node runs with a key of its own, and etcd admits as a peer only a certificate
	 * named {@code etcd-peer} (ETCD_PEER_CERT_ALLOWED_CN; SecretsScriptTests checks the
	 * certificates docker/secrets.sh makes and how the compose file hands them out).
	 * Tried from a container on the db network with certificates of the deployment's CA
	 * made here, without names in the SAN (etcd would also check those against the
	 * caller's address): one named etcd-peer gets an answer from etcd1's peer port, one
	 * named otherwise and a node's own certificate are refused.
	 */
	@Test
	@Order(-4)
	void etcdAdmitsOnlyItsPeersAndEveryNodeHasAKeyOfItsOwn() throws Exception {
		Path secrets = Path.of(HA.environment().get("SECRETS_DIR"));
		Path certificates = Files.createTempDirectory("peer-certificates");
		try {
			Files.copy(secrets.resolve("tls-ca.crt"), certificates.resolve("ca.crt"));
			Files.copy(secrets.resolve("tls-pg1.crt"), certificates.resolve("node.crt"));
			Files.copy(secrets.resolve("tls-pg1.key"), certificates.resolve("node.key"));
			signedByTheAuthority(secrets, certificates, "peer", "etcd-peer");
			signedByTheAuthority(secrets, certificates, "intruder", "intruder");
			// Readable by the probe's user (postgres) in its container.
			try (var files = Files.list(certificates)) {
				for (Path file : files.toList()) {
					Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
				}
			}
			Files.setPosixFilePermissions(certificates, PosixFilePermissions.fromString("rwxr-xr-x"));
			String probe = """
					import ssl, sys, urllib.error, urllib.request
					for name in sys.argv[1:]:
					    context = ssl.create_default_context(cafile='/certificates/ca.crt')
					    context.load_cert_chain('/certificates/%s.crt' % name, '/certificates/%s.key' % name)
					    try:
					        with urllib.request.urlopen('https://etcd1:2380/members', context=context, timeout=10) as r:
					            print(name, 'answered', r.status)
					    except urllib.error.HTTPError as e:
					        print(name, 'answered', e.code)
					    except Exception as e:
					        print(name, 'refused')
					""";
			ComposeProject.Result result = HA.run(Duration.ofMinutes(2),
					List.of("docker", "run", "--rm", "--network", HA.name() + "_db", "-v",
							certificates + ":/certificates:ro", "--entrypoint", "python3", nodeImage(), "-c", probe,
							"peer", "intruder", "node"));
			assertThat(result.exitCode()).as(result.output()).isZero();
			assertThat(result.stdout().lines().toList()).as(result.output())
				.containsExactly("peer answered 200", "intruder refused", "node refused");
		}
		finally {
			try (var files = Files.list(certificates)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
			Files.delete(certificates);
		}
		List<String> keys = new ArrayList<>();
		for (String node : NODES) {
			ComposeProject.Result key = HA.compose(Duration.ofSeconds(30), "exec", "-T", node, "sha256sum",
					"/var/lib/postgresql/tls/db.key");
			assertThat(key.exitCode()).as(key.output()).isZero();
			keys.add(key.stdout().strip().split(" ")[0]);
		}
		assertThat(keys).as("the nodes' keys").doesNotHaveDuplicates();
	}

	/**
	 * CERTIFICATES/NAME.crt and .key, named COMMON_NAME, signed by the deployment's CA.
	 */
	private static void signedByTheAuthority(Path secrets, Path certificates, String name, String commonName)
			throws Exception {
		Path key = certificates.resolve(name + ".key");
		Path request = certificates.resolve(name + ".csr");
		Path extensions = certificates.resolve(name + ".ext");
		Files.writeString(extensions, "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
				+ "extendedKeyUsage=serverAuth,clientAuth\n");
		for (List<String> command : List.of(
				List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
						"/CN=" + commonName, "-keyout", key.toString(), "-out", request.toString()),
				List.of("openssl", "x509", "-req", "-in", request.toString(), "-CA",
						secrets.resolve("tls-ca.crt").toString(), "-CAkey", secrets.resolve("tls-ca.key").toString(),
						"-days", "1", "-set_serial", "0x" + UUID.randomUUID().toString().replace("-", ""), "-extfile",
						extensions.toString(), "-out", certificates.resolve(name + ".crt").toString()))) {
			ComposeProject.Result made = HA.run(Duration.ofSeconds(30), command);
			assertThat(made.exitCode()).as(made.output()).isZero();
		}
	}

	/**
	 * The runtime role reads the standbys' state through {@code monitoring.standbys()}
	 * (db/scripts/monitoring.sh, run by Patroni's bootstrap and at every start of the
	 * leader) and holds no statistics role: no walsender's state in pg_stat_replication,
	 * no other session's statement in pg_stat_activity.
	 */
	@Test
	@Order(-4)
	void theRuntimeRoleReadsTheStandbysAndNoOtherStatistics() throws Exception {
		String leader = leader(NODES);
		String runtime = "host=" + leader + " dbname=profiles user=profiles sslmode=verify-full sslrootcert=/ca.crt";
		assertThat(psqlFrom("app", runtime, HA.secret("app-db-password"),
				"SELECT pg_has_role('pg_read_all_stats', 'MEMBER') || ' ' || pg_has_role('pg_monitor', 'MEMBER')"
						+ " || ' ' || (SELECT count(*) FILTER (WHERE state = 'streaming') FROM monitoring.standbys())"
						+ " || ' ' || (SELECT count(state) FROM pg_stat_replication)"
						+ " || ' ' || (SELECT count(*) FROM pg_stat_activity WHERE usename = 'postgres'"
						+ " AND query <> '<insufficient privilege>')"))
			.isEqualTo("false false 2 0 0");
	}

	/**
	 * HAProxy reads each path in one spelling: the login path written another way is
	 * refused before it can try a password past the login limit. The forwarded headers
	 * are HAProxy's own: a client's {@code X-Forwarded-Host} does not reach the links the
	 * service builds.
	 */
	@Test
	@Order(-3)
	void haproxyReadsOnePathSpellingAndSetsTheForwardedHeadersItself() throws Exception {
		ApiClient api = api();
		String body = ApiClient.toJson(Map.of("id", UUID.randomUUID().toString(), "password", "wrong"));
		Map<String, Integer> statuses = new TreeMap<>();
		for (int i = 0; i < 200; i++) {
			for (String path : List.of("/%6Cogin", "/login;x=1", "//login", "/user/../login")) {
				ApiClient.Response response = api.post(path, body);
				statuses.merge(path + " " + response.status(), 1, Integer::sum);
				if (response.status() == 400) {
					assertThat(response.body()).contains("canonical form");
				}
			}
		}
		assertThat(statuses).as("200 logins at each spelling")
			.containsOnlyKeys("/%6Cogin 400", "/login;x=1 400", "//login 400", "/user/../login 400");

		String first = "Link" + ApiClient.uniqueName().substring(1, 8);
		String last = ApiClient.uniqueName();
		api.register(first, last, "secret-password");
		api.register(first, last, "secret-password");
		String search = "/user/search?first_name=" + first + "&last_name=" + last + "&limit=1";
		ApiClient.Response page = await("both in the search").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> api.get(search, "X-Forwarded-Host", "attacker.example", "X-Forwarded-Proto", "http",
					"X-Forwarded-Port", "1", "Forwarded", "host=attacker.example;proto=http"),
					(response) -> response.status() == 200 && response.headers().firstValue("Link").isPresent());
		assertThat(page.headers().firstValue("Link").orElseThrow())
			.startsWith("<https://127.0.0.1:" + HTTPS_PORT + "/user/search?")
			.doesNotContain("attacker");
	}

	/**
	 * 300 connections that send a request's headers and then its body a byte a second:
	 * HAProxy buffers them (not a service thread) and closes each within 10 s, and a GET
	 * from another connection meanwhile answers within 1 s at p99. The close is what is
	 * measured, not an answer: HAProxy 3 answers a timed-out body 408 and then keeps
	 * reading what the client still sends, up to its body's end, so the deployment closes
	 * such a connection itself, without an answer (docker/ha/haproxy.cfg). A chunked
	 * body, whose end cannot be known before it comes, is closed at once.
	 */
	@Test
	@Order(-3)
	void slowBodiesAreClosedWithinTenSecondsAndOtherClientsAreServed() throws Exception {
		ApiClient api = api();
		String id = api.register("Slow", ApiClient.uniqueName(), "secret-password").toString();
		URI https = lb();
		SSLSocketFactory sockets = HA.trustingItsAuthority().getSocketFactory();
		int slow = 300;
		List<SlowBody> outcomes = Collections.synchronizedList(new ArrayList<>());
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < slow; i++) {
			Thread thread = new Thread(() -> outcomes.add(slowBody(sockets, https)), "slow-body-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
		}
		List<Long> latencies = new ArrayList<>();
		long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < until) {
			long began = System.nanoTime();
			ApiClient.Response profile = api.get("/user/get/" + id);
			latencies.add((System.nanoTime() - began) / 1_000_000);
			assertThat(profile.status()).as(profile.body()).isEqualTo(200);
			Thread.sleep(50);
		}
		for (Thread thread : threads) {
			thread.join(40_000);
		}
		List<Long> sorted = latencies.stream().sorted().toList();
		long p99 = sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1);
		List<Long> closedAfter = outcomes.stream().map(SlowBody::closedAfterMillis).toList();
		System.out
			.println("slow bodies: " + slow + " connections closed after " + summary(closedAfter) + " ms, answered "
					+ outcomes.stream().collect(Collectors.groupingBy(SlowBody::answer, Collectors.counting()))
					+ "; GETs meanwhile: " + sorted.size() + ", p99 " + p99 + " ms");
		assertThat(closedAfter).hasSize(slow).allMatch((millis) -> millis >= 0 && millis <= 10_000);
		assertThat(p99).as("p99 of the GETs meanwhile, ms").isLessThanOrEqualTo(1000);
		SlowBody chunked = slowBody(sockets, https, "Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n");
		assertThat(chunked.closedAfterMillis()).as("a chunked body, whose end HAProxy cannot know, closed at once")
			.isBetween(0L, 1000L);
	}

	/**
	 * Issue 59, point 9: a client that sends its headers a byte a second never ends them,
	 * and Tomcat alone would keep its connection as long as each byte comes within 5 s of
	 * the last. HAProxy's {@code timeout http-request 8s} bounds the whole of them: the
	 * edge answers 408 and closes the connection about 8 s after it opened.
	 */
	@Test
	@Order(-3)
	void slowHeadersAreClosedAtTheEdgesDeadline() throws Exception {
		SlowBody slow = slowBody(HA.trustingItsAuthority().getSocketFactory(), lb(), "X-Slow: ");
		System.out.println("slow headers: closed after " + slow.closedAfterMillis() + " ms, answered " + slow.answer());
		assertThat(slow.closedAfterMillis()).as("closed after, ms").isBetween(5_000L, 10_000L);
		assertThat(slow.answer()).contains(" 408");
	}

	/**
	 * What became of a slow request.
	 *
	 * @param closedAfterMillis how long after the handshake the connection was closed (an
	 * end of stream or a reset), -1 if it was still open 30 s later
	 * @param answer the status line of an answer that came before, or {@code nothing}
	 */
	private record SlowBody(long closedAfterMillis, String answer) {
	}

	/**
	 * One slow request: its headers at once, then a byte of its 1,000-byte body every
	 * second, until the connection closes or 30 s have passed.
	 */
	private static SlowBody slowBody(SSLSocketFactory sockets, URI https) {
		return slowBody(sockets, https, "Content-Length: 1000\r\n\r\n{");
	}

	/**
	 * As {@link #slowBody(SSLSocketFactory, URI)}, with the given end of the headers and
	 * start of the body; what is sent a byte a second after it is a header's value if the
	 * headers have not ended.
	 */
	private static SlowBody slowBody(SSLSocketFactory sockets, URI https, String bodyStart) {
		try (SSLSocket socket = (SSLSocket) sockets.createSocket(https.getHost(), https.getPort())) {
			socket.setSoTimeout(1000);
			socket.startHandshake();
			long began = System.nanoTime();
			OutputStream out = socket.getOutputStream();
			out.write(("POST /user/register HTTP/1.1\r\nHost: " + https.getAuthority()
					+ "\r\nContent-Type: application/json\r\n" + bodyStart)
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			StringBuilder answer = new StringBuilder();
			byte[] buffer = new byte[4096];
			while (System.nanoTime() - began < Duration.ofSeconds(30).toNanos()) {
				try {
					int read = in.read(buffer);
					if (read < 0) {
						return new SlowBody((System.nanoTime() - began) / 1_000_000, statusLine(answer));
					}
					answer.append(new String(buffer, 0, read, StandardCharsets.US_ASCII));
				}
				catch (SocketTimeoutException ex) {
					try {
						out.write(' ');
						out.flush();
					}
					catch (IOException closed) {
						return new SlowBody((System.nanoTime() - began) / 1_000_000, statusLine(answer));
					}
				}
				catch (IOException reset) {
					return new SlowBody((System.nanoTime() - began) / 1_000_000, statusLine(answer));
				}
			}
			return new SlowBody(-1, statusLine(answer));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String statusLine(CharSequence answer) {
		String text = answer.toString();
		return text.isEmpty() ? "nothing" : text.lines().findFirst().orElse(text);
	}

	private static String summary(List<Long> millis) {
		List<Long> sorted = millis.stream().sorted().toList();
		return sorted.isEmpty() ? "none" : sorted.get(0) + "-" + sorted.get(sorted.size() - 1);
	}

	/** HAProxy's HTTPS address on the host. */
	private static URI lb() {
		return URI.create("https://127.0.0.1:" + HTTPS_PORT);
	}

	/** The first three parts of the edge network's addresses, with the dot. */
	private static String edgePrefix() {
		String subnet = System.getProperty("it.ha.edge-subnet", "172.29.202.0/24");
		return subnet.substring(0, subnet.lastIndexOf('.') + 1);
	}

	/** A client of the API through HAProxy, over HTTPS, trusting the deployment's CA. */
	private static ApiClient api() throws Exception {
		return new ApiClient(lb(), HA.trustingItsAuthority());
	}

	/**
	 * One HTTP request with Python from inside a node's container, trusting the
	 * deployment's CA: the status code, or "error" and what went wrong when no HTTP
	 * answer came (as for plain HTTP to a TLS port).
	 */
	private static String fromNode(String node, String method, String url, String body, String basic) throws Exception {
		String script = """
				import ssl, sys, urllib.error, urllib.request
				method, url, body, basic = sys.argv[1:5]
				headers = {"Content-Type": "application/json"}
				if basic:
				    headers["Authorization"] = "Basic " + basic
				request = urllib.request.Request(url, body.encode() if body else None, headers, method=method)
				context = ssl.create_default_context(cafile="/run/secrets/tls-ca.crt")
				try:
				    with urllib.request.urlopen(request, timeout=10, context=context) as response:
				        print(response.status)
				except urllib.error.HTTPError as error:
				    print(error.code)
				except Exception as error:
				    print("error", type(error).__name__)
				""";
		ComposeProject.Result result = HA.compose(Duration.ofSeconds(60), "exec", "-T", node, "python3", "-c", script,
				method, url, body, basic);
		assertThat(result.exitCode()).as(result.output()).isZero();
		return result.stdout().strip();
	}

	/**
	 * psql from a container of its own on one of the deployment's networks (Patroni's
	 * image has it), with the deployment's CA at /ca.crt: "ok" if it logged in, else what
	 * psql said.
	 */
	private static String psqlFrom(String network, String conninfo, String password) throws Exception {
		return psqlFrom(network, conninfo, password, "SELECT 'ok'");
	}

	private static String psqlFrom(String network, String conninfo, String password, String sql) throws Exception {
		// The password in docker's environment, not on its command line.
		ComposeProject.Result result = HA.withEnvironment(Map.of("PGPASSWORD", password))
			.run(Duration.ofMinutes(2),
					List.of("docker", "run", "--rm", "--network", HA.name() + "_" + network, "-v",
							Path.of(HA.environment().get("SECRETS_DIR"), "tls-ca.crt") + ":/ca.crt:ro", "-e",
							"PGPASSWORD", "-e", "PGCONNECT_TIMEOUT=10", "--entrypoint", "psql", nodeImage(), "-XAtq",
							"-d", conninfo, "-c", sql));
		return (result.exitCode() == 0) ? result.stdout().strip() : result.output().strip();
	}

	private static String nodeImage() throws Exception {
		String container = HA.compose(Duration.ofSeconds(30), "ps", "-q", "pg1").stdout().strip();
		return HA.run(Duration.ofSeconds(30), List.of("docker", "inspect", "-f", "{{.Config.Image}}", container))
			.stdout()
			.strip();
	}

	/**
	 * Issue 49: clients reach HAProxy as a user's clients do, through its port on the
	 * host, from three addresses of their own (loopback addresses). HAProxy sees each
	 * address (it runs in the host's network namespace: no Docker proxy or NAT in
	 * between) and the service gets it in X-Forwarded-For. The first client fails 200
	 * logins: it is stopped by the service's per-address limit and then by HAProxy's
	 * stick table; the other two log in at once. Then it registers until HAProxy's
	 * registration limit (10 a minute, as shipped; raised for the writers of the other
	 * tests) stops it, and the other two register. Were every client one address, as
	 * behind Docker's proxy, the other two would be refused with it.
	 */
	@Test
	@Order(-1)
	void eachClientThroughTheHostPortIsLimitedOnItsOwn() throws Exception {
		SSLSocketFactory tls = HA.trustingItsAuthority().getSocketFactory();
		int port = Integer.parseInt(HTTPS_PORT);
		AbuseIntegrationTests.RawClient first = new AbuseIntegrationTests.RawClient("127.0.0.61", port, tls);
		List<AbuseIntegrationTests.RawClient> others = List.of(
				new AbuseIntegrationTests.RawClient("127.0.0.62", port, tls),
				new AbuseIntegrationTests.RawClient("127.0.0.63", port, tls));
		ComposeProject shipped = withLoadBalancer("LB_REGISTRATIONS_PER_MINUTE", "10");
		try {
			Map<String, Integer> logins = new TreeMap<>();
			for (int i = 0; i < 200; i++) {
				ApiClient.Response answer = first.login(UUID.randomUUID(), "wrong-password");
				String key = (answer.status() == 429 && answer.body().contains("from this address; retry later"))
						? "lb429" : Integer.toString(answer.status());
				logins.merge(key, 1, Integer::sum);
			}
			assertThat(logins.get("401")).as("first: " + logins).isPositive();
			assertThat(logins.get("429")).as("first, refused by the service: " + logins).isPositive();
			assertThat(logins.get("lb429")).as("first, refused by HAProxy: " + logins).isPositive();
			for (AbuseIntegrationTests.RawClient other : others) {
				UUID own = registered(other);
				assertThat(other.login(own, "secret-password").status()).as("another client's own login")
					.isEqualTo(200);
			}
			int registrations = 0;
			int status = 200;
			while (status == 200 && registrations < 20) {
				status = register(first).status();
				registrations++;
			}
			assertThat(status).as("the first client's registration %d", registrations).isEqualTo(429);
			for (AbuseIntegrationTests.RawClient other : others) {
				registered(other);
			}
		}
		finally {
			withLoadBalancer("LB_REGISTRATIONS_PER_MINUTE", WRITERS_REGISTRATIONS_PER_MINUTE);
		}
	}

	/**
	 * Issue 59: one address holds as many connections to HAProxy's HTTPS port as it can
	 * open (up to 8,200, past HAProxy's 8,000), sending nothing, while three other
	 * addresses each log in 20 times and read 20 times: every one of their requests is
	 * answered 200, none waits for a connection slot, and the first address never holds
	 * more than the shipped 100 connections at once. Without the per-client limit it held
	 * every slot and the others' requests waited for one.
	 */
	@Test
	@Order(-1)
	void oneClientCannotHoldTheConnectionsEveryoneShares() throws Exception {
		SSLSocketFactory tls = HA.trustingItsAuthority().getSocketFactory();
		int port = Integer.parseInt(HTTPS_PORT);
		Map<String, String> shipped = new HashMap<>();
		shipped.put("LB_CONNECTIONS_PER_CLIENT", null);
		shipped.put("LB_CONNECTIONS_PER_CLIENT_10S", null);
		List<AbuseIntegrationTests.RawClient> others = List.of(
				new AbuseIntegrationTests.RawClient("127.0.0.82", port, tls),
				new AbuseIntegrationTests.RawClient("127.0.0.83", port, tls),
				new AbuseIntegrationTests.RawClient("127.0.0.84", port, tls));
		List<UUID> ids = new ArrayList<>();
		for (AbuseIntegrationTests.RawClient other : others) {
			ids.add(registered(other));
		}
		withLoadBalancer(shipped);
		Map<String, Integer> answers = new TreeMap<>();
		String hogged;
		int held;
		try (ConnectionHog hog = new ConnectionHog(new InetSocketAddress("127.0.0.81", 0),
				new InetSocketAddress("127.0.0.1", port), 8_200)) {
			// Let it open what it can: a few seconds at 200 connections a batch.
			Thread.sleep(8_000);
			for (int round = 0; round < 20; round++) {
				for (int i = 0; i < others.size(); i++) {
					AbuseIntegrationTests.RawClient other = others.get(i);
					answers.merge("login " + other.login(ids.get(i), "secret-password").status(), 1, Integer::sum);
					answers.merge("read " + other.get("/user/get/" + ids.get(i)).status(), 1, Integer::sum);
				}
			}
			hogged = hog.describe();
			held = hog.maxHeld();
		}
		finally {
			withLoadBalancer(Map.of());
		}
		System.out.println("one client holding connections: " + hogged + "; the others' answers " + answers);
		assertThat(answers).as(hogged).isEqualTo(Map.of("login 200", 60, "read 200", 60));
		assertThat(held).as(hogged).isLessThanOrEqualTo(SHIPPED_CONNECTIONS_PER_CLIENT);
	}

	/**
	 * Issue 59: two IPv6 addresses of one /64 are one client at the edge, as they are to
	 * the service. HAProxy listens on an IPv6 address as well (LB_ADDRESS6), reads are
	 * limited to 20 in 10 s, and from a network namespace of the test's own
	 * ({@link Ipv6Neighbour}) one address reads until refused: the other address of the
	 * same /64 is refused from its first read, while an IPv4 client still reads.
	 * Unmasked, the second address was a new client with 20 reads of its own.
	 */
	@Test
	@Order(-1)
	void twoAddressesOfOneSlash64AreOneClientAtTheEdge() throws Exception {
		ApiClient api = api();
		String path = "/user/get/" + api.register("Six", ApiClient.uniqueName(), "secret-password");
		Path ca = Path.of(HA.environment().get("SECRETS_DIR"), "tls-ca.crt");
		int port = Integer.parseInt(HTTPS_PORT);
		List<Integer> first = new ArrayList<>();
		int second;
		try (Ipv6Neighbour neighbour = Ipv6Neighbour.create()) {
			withLoadBalancer(Map.of("LB_ADDRESS6", Ipv6Neighbour.HOST_ADDRESS, "LB_READS_PER_10S", "20"));
			for (int i = 0; i < 21; i++) {
				first.add(neighbour.get(Ipv6Neighbour.FIRST, port, path, ca));
			}
			second = neighbour.get(Ipv6Neighbour.SECOND, port, path, ca);
			assertThat(api.get(path).status()).as("an IPv4 client's read meanwhile").isEqualTo(200);
		}
		finally {
			withLoadBalancer(Map.of());
		}
		System.out.println("reads from " + Ipv6Neighbour.FIRST + ": " + first + "; then from " + Ipv6Neighbour.SECOND
				+ ": " + second);
		assertThat(first.subList(0, 20)).as("the first address's first 20 reads").containsOnly(200);
		assertThat(first.get(20)).as("its 21st read").isEqualTo(429);
		assertThat(second).as("the first read of another address of the same /64").isEqualTo(429);
	}

	/**
	 * Issue 59: HAProxy's HTTPS port speaks TLS 1.3, or TLS 1.2 with forward-secret AEAD
	 * suites, and nothing else: a client offering only a CBC suite (with SHA-1 or
	 * SHA-384) or only TLS 1.1 is refused, while one offering an AEAD suite, or TLS 1.3,
	 * completes its handshake. openssl s_client from the host, verifying the deployment's
	 * certificate. Before, HAProxy took OpenSSL's default list, CBC suites included.
	 */
	@Test
	@Order(-3)
	void theEdgeSpeaksOnlyCurrentTls() throws Exception {
		assertThat(handshake("-tls1_3")).as("TLS 1.3").isEqualTo("handshake");
		assertThat(handshake("-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256")).as("TLS 1.2, AES-GCM")
			.isEqualTo("handshake");
		assertThat(handshake("-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305")).as("TLS 1.2, ChaCha20")
			.isEqualTo("handshake");
		assertThat(handshake("-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA")).as("TLS 1.2, CBC with SHA-1")
			.isEqualTo("refused");
		assertThat(handshake("-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-SHA384")).as("TLS 1.2, CBC with SHA-384")
			.isEqualTo("refused");
		assertThat(handshake("-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0")).as("TLS 1.1").isEqualTo("refused");
	}

	/** One TLS handshake with HAProxy's HTTPS port: "handshake" or "refused". */
	private static String handshake(String... options) throws Exception {
		StringBuilder command = new StringBuilder("openssl s_client -brief -verify_return_error -connect 127.0.0.1:")
			.append(HTTPS_PORT)
			.append(" -servername localhost -CAfile ")
			.append(Path.of(HA.environment().get("SECRETS_DIR"), "tls-ca.crt"));
		for (String option : options) {
			command.append(' ').append(option);
		}
		ComposeProject.Result result = HA.run(Duration.ofSeconds(30), List.of("bash", "-c", command + " < /dev/null"));
		return (result.exitCode() == 0 && result.output().contains("Verification: OK")) ? "handshake" : "refused";
	}

	/**
	 * Issue 59: a process of the host that connects to an instance directly, as any
	 * process of the host can (the host has an address on the edge network), has its
	 * X-Forwarded-For ignored: 60 failed logins, each naming another client address, are
	 * counted as one client, the host's, and refused past the service's 50 per address.
	 * Before the relay the instances trusted that header from the host's address, where
	 * HAProxy's connections came from, and each login was a client of its own. Through
	 * HAProxy and the relay, clients are still told apart
	 * ({@link #eachClientThroughTheHostPortIsLimitedOnItsOwn}).
	 */
	@Test
	@Order(-1)
	void aHostProcessThatSkipsHaproxyCannotNameItsClientAddress() throws Exception {
		ApiClient direct = new ApiClient(EDGE_PREFIX + "11", 8080);
		Map<Integer, Integer> statuses = new TreeMap<>();
		for (int i = 0; i < 60; i++) {
			String forged = "198.51.100." + (i + 1);
			ApiClient.Response answer = direct.post("/login",
					ApiClient.toJson(Map.of("id", UUID.randomUUID().toString(), "password", "wrong-password")),
					"X-Forwarded-For", forged);
			statuses.merge(answer.status(), 1, Integer::sum);
		}
		System.out.println("60 failed logins straight to app1, each with another X-Forwarded-For: " + statuses);
		assertThat(statuses.get(429)).as("refused as one client: " + statuses).isPositive();
	}

	private static ApiClient.Response register(AbuseIntegrationTests.RawClient client) {
		return client.post("/user/register",
				ApiClient.registration("Client", ApiClient.uniqueName(), "secret-password"));
	}

	private static UUID registered(AbuseIntegrationTests.RawClient client) {
		ApiClient.Response answer = register(client);
		assertThat(answer.status()).as(answer.body()).isEqualTo(200);
		return UUID.fromString(answer.json().get("user_id").asString());
	}

	/**
	 * Re-creates HAProxy with one setting changed, and waits until it answers: a second.
	 */
	private static ComposeProject withLoadBalancer(String variable, String value) throws Exception {
		return withLoadBalancer(Map.of(variable, value));
	}

	/**
	 * Re-creates HAProxy with the test's environment changed so (a {@code null} value
	 * leaves the variable to docker-compose.ha.yml's default; an empty map restores the
	 * test's own), and waits until it answers.
	 */
	private static ComposeProject withLoadBalancer(Map<String, String> changes) throws Exception {
		Map<String, String> environment = new HashMap<>(HA.environment());
		changes.forEach((variable, value) -> {
			if (value == null) {
				environment.remove(variable);
			}
			else {
				environment.put(variable, value);
			}
		});
		ComposeProject changed = new ComposeProject(HA.name(), HA.files(), environment);
		ComposeProject.Result up = changed.compose(Duration.ofMinutes(2), "up", "-d", "--no-deps", "--force-recreate",
				"lb");
		assertThat(up.exitCode()).as(up.output()).isZero();
		ApiClient api = api();
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (true) {
			try {
				if (api.get("/actuator/health").status() > 0) {
					return changed;
				}
			}
			catch (IllegalStateException notYet) {
				if (System.nanoTime() > deadline) {
					throw notYet;
				}
			}
			Thread.sleep(500);
		}
	}

	@Test
	@Order(0)
	void tokensSignedWithAPublishedKeyAreRefused() throws Exception {
		ForgedTokens.assertPublishedKeysRefused(api(), HA.secret("token-keys"));
	}

	/**
	 * One HTTP/1.0 request with bash's /dev/tcp from inside a service's container: its
	 * status line, or "unreachable" when no connection can be made within 5 s.
	 * @param target "host port METHOD /path body"
	 * @param basic Basic credentials, or empty
	 */
	private static String http(String service, String target, String basic) throws Exception {
		String[] parts = target.split(" ", 5);
		String script = """
				timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null || { echo unreachable; exit 0; }
				exec 3<>"/dev/tcp/$1/$2" 2>/dev/null || { echo unreachable; exit 0; }
				auth=""; [ -n "$6" ] && auth="Authorization: Basic $6"$'\\r\\n'
				printf '%s %s HTTP/1.0\\r\\nHost: %s\\r\\nContent-Type: application/json\\r\\n%sContent-Length: %d\\r\\n\\r\\n%s' \
					"$3" "$4" "$1" "$auth" "${#5}" "$5" >&3
				timeout 10 head -n 1 <&3 | tr -d '\\r'
				""";
		ComposeProject.Result result = HA.compose(Duration.ofSeconds(60), "exec", "-T", service, "timeout", "20",
				"bash", "-c", script, "http", parts[0], parts[1], parts[2], parts[3], parts[4], basic);
		assertThat(result.exitCode()).as(result.output()).isZero();
		return result.stdout().strip();
	}

	@Test
	@Order(1)
	void killedLeaderIsReplacedByPatroniWithoutLosingAcknowledgedWrites() throws Exception {
		String oldLeader = leader(NODES);
		// The check counts every row without its own marker as unexpected, and the tests
		// of the locks registered users: start empty.
		HA.psql(oldLeader, "profiles", "TRUNCATE users CASCADE");
		PatroniTarget target = new PatroniTarget(lb().resolve("/user/register"), oldLeader);

		LostWriteCheck.Report report = LostWriteCheck.run(settings(true), target);

		assertThat(report.acknowledgedInTotal()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isZero();
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.newPrimary()).isNotEqualTo(oldLeader);
		LostWriteCheck.assertEachKeyMapsToOneUser(report, ACKNOWLEDGED);

		// The old leader's machine comes back; Patroni rewinds it to follow the new one.
		long restarted = System.nanoTime();
		ComposeProject.Result start = HA.compose(Duration.ofMinutes(2), "start", oldLeader);
		assertThat(start.exitCode()).as(start.output()).isZero();
		List<Member> members = awaitMembers(NODES, Duration.ofMinutes(3));
		String rejoined = oldLeader + " rejoined as "
				+ members.stream().filter((m) -> m.name().equals(oldLeader)).findFirst().orElseThrow().role() + " "
				+ (System.nanoTime() - restarted) / 1_000_000 + " ms after its container started again";
		System.out.println(rejoined);
		Files.writeString(WORK.resolve("sync-rejoin.txt"), rejoined + "\n" + describe(members));
		assertThat(leader(NODES)).isEqualTo(report.newPrimary());
	}

	@Test
	@Order(2)
	void partitionedLeaderAcknowledgesNothingOnceAnotherTookOverAndRejoins() throws Exception {
		String oldLeader = leader(NODES);
		// The check counts every row without its own marker as unexpected: start empty.
		HA.psql(oldLeader, "profiles", "TRUNCATE users CASCADE");
		PartitionTarget target = new PartitionTarget(lb().resolve("/user/register"), oldLeader, new AtomicLong(),
				new AtomicReference<>());
		WritableWatch watch = new WritableWatch(oldLeader, target.partitioned());
		Thread watcher = new Thread(watch, "writable-watch");
		watcher.setDaemon(true);
		watcher.start();
		LostWriteCheck.Report report;
		try {
			report = LostWriteCheck.run(new LostWriteCheck.Settings(true, WRITERS, ACKNOWLEDGED / 2, ACKNOWLEDGED,
					Duration.ZERO, Duration.ofSeconds(300 + ACKNOWLEDGED / 10), WORK.resolve("partition")), target);
		}
		finally {
			watch.stop();
			watcher.join(30_000);
		}
		String timeline = watch.describe();
		System.out.print(timeline);

		assertThat(report.acknowledgedInTotal()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.acknowledgedAfterFailover()).isPositive();
		assertThat(report.lost()).as("acknowledged but missing").isZero();
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.newPrimary()).isNotEqualTo(oldLeader);
		LostWriteCheck.assertEachKeyMapsToOneUser(report, ACKNOWLEDGED);
		assertThat(watch.roundsWithTwoWritable()).as("rounds in which two nodes were out of recovery:\n" + timeline)
			.isZero();

		// The partition heals: the old leader must follow the new one by itself.
		long healed = System.nanoTime();
		target.reconnect();
		List<Member> members = awaitMembers(NODES, Duration.ofMinutes(3));
		String rejoined = oldLeader + " rejoined as "
				+ members.stream().filter((m) -> m.name().equals(oldLeader)).findFirst().orElseThrow().role() + " "
				+ (System.nanoTime() - healed) / 1_000_000 + " ms after the partition healed";
		System.out.println(rejoined);
		Files.writeString(WORK.resolve("partition").resolve("timeline.txt"),
				timeline + rejoined + "\n" + describe(members));
		assertThat(leader(NODES)).isEqualTo(report.newPrimary());
	}

	@Test
	@Order(3)
	void asynchronousReplicationLosesWritesSoTheCheckIsLive() throws Exception {
		patronictl(NODES.get(0), "edit-config", "--force", "--set", "synchronous_mode=off",
				// An asynchronous standby behind by more than this is never promoted.
				"--set", "maximum_lag_on_failover=1073741824");
		String leader = leader(NODES);
		awaitSetting(leader, "synchronous_standby_names", "", Duration.ofMinutes(1));
		// The check counts every row without its own marker as unexpected: start empty.
		HA.psql(leader, "profiles", "TRUNCATE users CASCADE");
		PatroniTarget target = new PatroniTarget(lb().resolve("/user/register"), leader);

		LostWriteCheck.Report report = LostWriteCheck.run(settings(false), target);

		assertThat(report.acknowledged()).isGreaterThanOrEqualTo(ACKNOWLEDGED);
		assertThat(report.newPrimary()).isNotEqualTo(leader);
		assertThat(report.unexpected()).as("present but never sent").isZero();
		assertThat(report.lost()).as("acknowledged but missing: the control must lose writes").isPositive();
	}

	/**
	 * Issue 59: while Patroni fails over (the leader killed, another elected, the old one
	 * back as a standby), no process on the host has a password on its command line: the
	 * new leader's db/scripts/patroni-roles.sh gives psql the passwords in its
	 * environment. First, on the fresh cluster (the later tests leave it asynchronous).
	 */
	@Test
	@Order(-7)
	void noPasswordIsOnACommandLineWhileTheLeaderFailsOver() throws Exception {
		String oldLeader = leader(NODES);
		try (CommandLineWatch watch = CommandLineWatch.passwordsOf(Path.of(HA.environment().get("SECRETS_DIR")),
				Set.of("psql"))) {
			ComposeProject.Result kill = HA.compose(Duration.ofSeconds(60), "kill", "-s", "SIGKILL", oldLeader);
			assertThat(kill.exitCode()).as(kill.output()).isZero();
			System.out.println(awaitNewLeader(oldLeader));
			ComposeProject.Result start = HA.compose(Duration.ofMinutes(2), "start", oldLeader);
			assertThat(start.exitCode()).as(start.output()).isZero();
			awaitMembers(NODES, Duration.ofMinutes(3));
		}
	}

	/**
	 * The passwords follow the secret files at every start, not only at initialisation:
	 * the runtime role's is changed in its file (in place, as an operator would edit it),
	 * the nodes restart and the leader sets it again (db/scripts/patroni-roles.sh); the
	 * service instances, restarted, log in with the new one, and the old one is refused.
	 * First, on the healthy cluster the others then run on (after the asynchronous
	 * control has lost writes, three nodes restarted at once elected no leader within 3
	 * minutes).
	 */
	@Test
	@Order(-6)
	void theNodesTakeThePasswordsOfTheSecretFilesAtEveryStart() throws Exception {
		Path file = Path.of(HA.environment().get("SECRETS_DIR"), "app-db-password");
		String old = HA.secret("app-db-password");
		String fresh = "rotated" + UUID.randomUUID().toString().replace("-", "");
		Files.writeString(file, fresh, StandardOpenOption.TRUNCATE_EXISTING);
		ComposeProject.Result nodes = HA.compose(Duration.ofMinutes(5), "restart", "pg1", "pg2", "pg3");
		assertThat(nodes.exitCode()).as(nodes.output()).isZero();
		awaitMembers(NODES, Duration.ofMinutes(3));
		String runtime = "host=pg1 dbname=profiles user=profiles sslmode=verify-full sslrootcert=/ca.crt";
		await("the new password on the leader").atMost(Duration.ofMinutes(1))
			.pollInterval(Duration.ofSeconds(2))
			.until(() -> psqlFrom("app", runtime, fresh), "ok"::equals);
		assertThat(psqlFrom("app", runtime, old)).contains("password authentication failed");
		ComposeProject.Result apps = HA.compose(Duration.ofMinutes(5), "restart", "app1", "app2");
		assertThat(apps.exitCode()).as(apps.output()).isZero();
		ApiClient api = api();
		await("a registration through the restarted instances").atMost(Duration.ofMinutes(3))
			.pollInterval(Duration.ofSeconds(2))
			.ignoreExceptions()
			.until(() -> api
				.post("/user/register", ApiClient.registration("Rotated", ApiClient.uniqueName(), "secret-password"))
				.status() == 200);
	}

	private static LostWriteCheck.Settings settings(boolean synchronous) {
		return new LostWriteCheck.Settings(synchronous, WRITERS, ACKNOWLEDGED / 2, ACKNOWLEDGED, STALL,
				Duration.ofSeconds(300 + ACKNOWLEDGED / 10), WORK);
	}

	/**
	 * A fault of the leader, after which Patroni alone elects another: the check waits
	 * for that and reads the rows on whichever node is then writable.
	 */
	private interface LeaderFault extends LostWriteCheck.Target {

		/** The leader the fault hits. */
		String leader();

		@Override
		default SSLContext sslContext() throws Exception {
			return HA.trustingItsAuthority();
		}

		@Override
		default String failover() throws Exception {
			return awaitNewLeader(leader());
		}

		@Override
		default LostWriteCheck.Rows rows(String markerPrefix, String keyPrefix) throws Exception {
			return HA.primaryRows(NODES, markerPrefix, keyPrefix);
		}

	}

	/** The deployment, killed through the compose CLI and failed over by Patroni. */
	private record PatroniTarget(URI register, String leader) implements LeaderFault {

		@Override
		public void stallReplication() throws Exception {
			String pids = HA.psql(this.leader, "postgres",
					"SELECT string_agg(pid::text, ' ') FROM pg_stat_replication");
			assertThat(pids).as("walsenders on " + this.leader).isNotBlank();
			ComposeProject.Result stop = HA.compose(Duration.ofSeconds(30), "exec", "-T", this.leader, "bash", "-c",
					"kill -STOP " + pids);
			assertThat(stop.exitCode()).as(stop.output()).isZero();
		}

		@Override
		public void crashPrimary() throws Exception {
			ComposeProject.Result kill = HA.compose(Duration.ofSeconds(60), "kill", "-s", "SIGKILL", this.leader);
			assertThat(kill.exitCode()).as(kill.output()).isZero();
		}

	}

	/**
	 * The leader cut off from etcd and its peers: its container leaves the {@code db}
	 * network, and stays on {@code app}, where the service still reaches it. Nothing is
	 * killed, and nothing is stalled by the test: the leader's own commits wait for a
	 * standby it can no longer reach.
	 */
	private record PartitionTarget(URI register, String leader, AtomicLong partitioned,
			AtomicReference<String> address) implements LeaderFault {

		@Override
		public void stallReplication() {
			throw new UnsupportedOperationException("the partition test runs without a stall");
		}

		@Override
		public void crashPrimary() throws Exception {
			this.address.set(HA.networkAddress(this.leader, "db"));
			this.partitioned.set(System.nanoTime());
			network("disconnect", List.of());
		}

		void reconnect() throws Exception {
			// With its address and its db-network name again: its REST API listens on
			// that address, and the others reach it by that name.
			network("connect", List.of("--ip", this.address.get(), "--alias", this.leader + "-db"));
		}

		private void network(String verb, List<String> options) throws Exception {
			ComposeProject.Result id = HA.compose(Duration.ofSeconds(30), "ps", "-q", this.leader);
			assertThat(id.exitCode()).as(id.output()).isZero();
			List<String> command = new ArrayList<>(List.of("docker", "network", verb));
			command.addAll(options);
			command.addAll(List.of(HA.name() + "_db", id.stdout().strip()));
			ComposeProject.Result result = HA.run(Duration.ofSeconds(60), command);
			assertThat(result.exitCode()).as(String.join(" ", command) + ":\n" + result.output()).isZero();
		}

	}

	/**
	 * Asks every node, round after round until stopped, whether it is out of recovery
	 * (writable), through {@code docker compose exec}, which needs no network: a
	 * partitioned node answers too.
	 */
	private static final class WritableWatch implements Runnable {

		private final String oldLeader;

		private final AtomicLong partitioned;

		private final List<String> rounds = new ArrayList<>();

		private volatile boolean stopped;

		private int twoWritable;

		private long oldLeaderReadOnlyMillis = -1;

		private long newLeaderWritableMillis = -1;

		WritableWatch(String oldLeader, AtomicLong partitioned) {
			this.oldLeader = oldLeader;
			this.partitioned = partitioned;
		}

		@Override
		public void run() {
			while (!this.stopped) {
				List<String> writable = new ArrayList<>();
				for (String node : NODES) {
					try {
						if ("f".equals(HA.psql(node, "postgres", "SELECT pg_is_in_recovery()"))) {
							writable.add(node);
						}
					}
					catch (Exception ex) {
						// Restarting (a demotion) or down: not writable.
					}
				}
				record(writable);
			}
		}

		private synchronized void record(List<String> writable) {
			long since = this.partitioned.get();
			if (since == 0) {
				return;
			}
			long millis = (System.nanoTime() - since) / 1_000_000;
			this.rounds.add(String.format("  %6d ms  writable: %s%n", millis, writable));
			if (writable.size() > 1) {
				this.twoWritable++;
			}
			if (this.oldLeaderReadOnlyMillis < 0 && !writable.contains(this.oldLeader)) {
				this.oldLeaderReadOnlyMillis = millis;
			}
			if (this.newLeaderWritableMillis < 0 && writable.stream().anyMatch((n) -> !n.equals(this.oldLeader))) {
				this.newLeaderWritableMillis = millis;
			}
		}

		void stop() {
			this.stopped = true;
		}

		synchronized int roundsWithTwoWritable() {
			return this.twoWritable;
		}

		synchronized String describe() {
			return "partition of " + this.oldLeader + ": it stopped being writable " + this.oldLeaderReadOnlyMillis
					+ " ms after it was cut off, another node became writable after " + this.newLeaderWritableMillis
					+ " ms; rounds with two writable nodes: " + this.twoWritable + " of " + this.rounds.size() + "\n"
					+ String.join("", this.rounds);
		}

	}

	/**
	 * One member as {@code patronictl list} shows it.
	 *
	 * @param name the node
	 * @param role Leader, Quorum Standby, Replica, ...
	 * @param state running, streaming, stopped, ...
	 */
	record Member(String name, String role, String state) {

		boolean leader() {
			return "Leader".equals(this.role) && "running".equals(this.state);
		}

		boolean quorumStandby() {
			return "Quorum Standby".equals(this.role) && "streaming".equals(this.state);
		}

	}

	/** Waits until Patroni has made another node than {@code old} the leader. */
	private static String awaitNewLeader(String old) throws Exception {
		List<String> others = NODES.stream().filter((n) -> !n.equals(old)).toList();
		long started = System.nanoTime();
		List<Member> members = await("a new leader other than " + old).atMost(Duration.ofMinutes(2))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> members(others), (seen) -> seen.stream().anyMatch((m) -> m.leader() && !m.name().equals(old)));
		return "Patroni elected a new leader " + (System.nanoTime() - started) / 1_000_000
				+ " ms after the fault; nothing was run to promote it\n" + describe(members);
	}

	/** The members, as the first of the nodes that answers sees them in etcd. */
	private static List<Member> members(List<String> askable) throws Exception {
		for (String node : askable) {
			ComposeProject.Result list = patronictlResult(node, "list", "--format", "json");
			if (list.exitCode() != 0) {
				continue;
			}
			List<Member> members = new ArrayList<>();
			for (JsonNode member : json.readTree(list.stdout())) {
				members.add(new Member(member.path("Member").asString(), member.path("Role").asString(),
						member.path("State").asString()));
			}
			return members;
		}
		return List.of();
	}

	/**
	 * Waits for one running leader and every other node streaming as a quorum standby.
	 */
	private static List<Member> awaitMembers(List<String> nodes, Duration timeout) throws Exception {
		return await("one leader and " + (nodes.size() - 1) + " quorum standbys").atMost(timeout)
			.pollInterval(Duration.ofMillis(500))
			.until(() -> members(nodes), (members) -> members.stream().filter(Member::leader).count() == 1
					&& members.stream().filter(Member::quorumStandby).count() == nodes.size() - 1);
	}

	private static String leader(List<String> nodes) throws Exception {
		return members(nodes).stream()
			.filter(Member::leader)
			.map(Member::name)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No leader"));
	}

	private static void awaitSetting(String node, String setting, String expected, Duration timeout) throws Exception {
		await(setting + " on " + node + " = '" + expected + "'").atMost(timeout)
			.pollInterval(Duration.ofMillis(500))
			.until(() -> HA.psql(node, "postgres", "SHOW " + setting), expected::equals);
	}

	private static void patronictl(String node, String... arguments) throws Exception {
		ComposeProject.Result result = patronictlResult(node, arguments);
		assertThat(result.exitCode()).as("patronictl " + String.join(" ", arguments) + ":\n" + result.output())
			.isZero();
	}

	private static ComposeProject.Result patronictlResult(String node, String... arguments) throws Exception {
		List<String> command = new ArrayList<>(
				List.of("exec", "-T", node, "patronictl", "-c", "/var/lib/postgresql/patroni.yml"));
		command.addAll(List.of(arguments));
		return HA.compose(Duration.ofSeconds(30), command.toArray(String[]::new));
	}

	private static String describe(List<Member> members) {
		StringBuilder text = new StringBuilder();
		for (Member member : members) {
			text.append(String.format("  %-4s %-15s %s%n", member.name(), member.role(), member.state()));
		}
		return text.toString();
	}

}
