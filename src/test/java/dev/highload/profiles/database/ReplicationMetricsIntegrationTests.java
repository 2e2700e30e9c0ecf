package dev.highload.profiles.database;

import java.time.Duration;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalManagementPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The replication metrics the Grafana dashboard draws, as Prometheus scrapes them.
 */
@IntegrationTest
class ReplicationMetricsIntegrationTests {

	@LocalManagementPort
	int managementPort;

	@Test
	void bothStandbysAreCountedAndTheirLagIsExported() throws InterruptedException {
		ApiClient api = new ApiClient(this.managementPort);
		String scrape = await("both standbys counted in the scrape").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> api.get("/actuator/prometheus").body(),
					(body) -> body.contains("profiles_replication_standbys 2.0"));
		for (String replica : new String[] { "replica1", "replica2" }) {
			assertThat(scrape).containsPattern("profiles_replication_lag_bytes\\{replica=\"" + replica + "\"} \\d")
				.containsPattern("profiles_replication_replay_lag_seconds\\{replica=\"" + replica + "\"} \\d");
		}
	}

}
