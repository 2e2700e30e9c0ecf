package dev.highload.profiles;

import java.util.UUID;

import dev.highload.profiles.AbuseIntegrationTests.RawClient;
import dev.highload.profiles.auth.ThrottleProperties;
import dev.highload.profiles.database.DatabaseProperties;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which client the per-address login limit counts, end to end over real sockets from
 * chosen loopback addresses ({@link RawClient}). As shipped, the connection's address,
 * whatever {@code X-Forwarded-For} says. Configured as the HA deployment runs the service
 * behind HAProxy ({@code server.forward-headers-strategy=native}, Tomcat's RemoteIpValve
 * trusting the proxy's address only), the forwarded address, but only on connections from
 * that address. The second configuration is a second instance of the service in this JVM,
 * started by the test on the shared cluster (no cluster, no migrations of its own, two
 * connections per pool) and closed when it is done.
 */
@IntegrationTest
class ForwardedClientIntegrationTests {

	@LocalServerPort
	int port;

	@Autowired
	ThrottleProperties throttle;

	@Autowired
	DatabaseProperties database;

	@Autowired
	ServerProperties server;

	int perAddress;

	@BeforeEach
	void limits() {
		this.perAddress = this.throttle.loginFailuresPerAddress();
		assertThat(this.perAddress).as("the test profile's limit").isBetween(2, 50);
	}

	@Test
	void asShippedTheConnectionsAddressIsTheClientWhateverItForwards() {
		// Said, not left to Spring Boot: on a detected cloud platform an unset strategy
		// trusts X-Forwarded-For from every private address.
		assertThat(this.server.getForwardHeadersStrategy()).isEqualTo(ServerProperties.ForwardHeadersStrategy.NONE);
		RawClient client = new RawClient("127.0.0.21", this.port);
		for (int i = 0; i < this.perAddress; i++) {
			assertThat(failedLogin(client, "203.0.113." + i)).as("failure %d", i + 1).isEqualTo(401);
		}
		assertThat(failedLogin(client, "203.0.113.200")).isEqualTo(429);
	}

	@Test
	void behindTheTrustedProxyEachForwardedAddressIsAClientAndNoOneElseCanForward() {
		try (ConfigurableApplicationContext behindProxy = startBehindProxy("127\\.0\\.0\\.1")) {
			int proxiedPort = Integer.parseInt(behindProxy.getEnvironment().getProperty("local.server.port"));
			RawClient proxy = new RawClient("127.0.0.1", proxiedPort);
			for (int i = 0; i < this.perAddress; i++) {
				assertThat(failedLogin(proxy, "198.51.100.1")).as("failure %d", i + 1).isEqualTo(401);
			}
			assertThat(failedLogin(proxy, "198.51.100.1")).isEqualTo(429);
			// Another client behind the same proxy has a count of its own.
			assertThat(failedLogin(proxy, "198.51.100.2")).isEqualTo(401);
			// HAProxy's option forwardfor adds its header after any the client sent: the
			// last address is the one the proxy saw.
			assertThat(proxy
				.login(UUID.randomUUID(), "guess", "X-Forwarded-For", "198.51.100.1", "X-Forwarded-For", "198.51.100.3")
				.status()).isEqualTo(401);

			// A client that is not the proxy is counted by its own address.
			RawClient other = new RawClient("127.0.0.2", proxiedPort);
			assertThat(failedLogin(other, "198.51.100.1")).as("not the blocked forwarded address").isEqualTo(401);
			for (int i = 1; i < this.perAddress; i++) {
				assertThat(failedLogin(other, "198.51.100." + (10 + i))).as("failure %d", i + 1).isEqualTo(401);
			}
			assertThat(failedLogin(other, "198.51.100.200")).isEqualTo(429);
		}
	}

	/**
	 * A failed login for a fresh id, so that only the per-address limit can refuse it.
	 */
	private static int failedLogin(RawClient client, String forwardedFor) {
		return client.login(UUID.randomUUID(), "guess", "X-Forwarded-For", forwardedFor).status();
	}

	/**
	 * The service with the HA deployment's settings for its proxy, on this test's cluster
	 * (embedded or Testcontainers: the shared context's pools say where it is).
	 * @param internalProxies the regular expression of the proxy's address
	 */
	private ConfigurableApplicationContext startBehindProxy(String internalProxies) {
		return new SpringApplicationBuilder(ProfilesApplication.class).profiles("test")
			.run("--app.cluster.enabled=false", "--app.db.nodes=" + String.join(",", this.database.nodes()),
					"--app.db.replicas=" + String.join(",", this.database.replicas()),
					"--app.db.database=" + this.database.database(), "--app.db.username=" + this.database.username(),
					"--app.db.password=" + this.database.password(), "--app.db.write-pool.maximum-size=2",
					"--app.db.read-pool.maximum-size=2", "--spring.flyway.enabled=false", "--server.port=0",
					"--management.server.port=0", "--server.forward-headers-strategy=native",
					"--server.tomcat.remoteip.internal-proxies=" + internalProxies,
					// With the embedded cluster off, the service needs a key of its own.
					"--app.auth.token-keys=" + TestCluster.randomTokenKey());
	}

}
