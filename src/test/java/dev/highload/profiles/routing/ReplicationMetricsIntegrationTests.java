package dev.highload.profiles.routing;

import java.time.Duration;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalManagementPort;

import static org.assertj.core.api.Assertions.assertThat;

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
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		String scrape = api.get("/actuator/prometheus").body();
		while (!scrape.contains("profiles_replication_standbys 2.0") && System.nanoTime() < deadline) {
			Thread.sleep(200);
			scrape = api.get("/actuator/prometheus").body();
		}
		assertThat(scrape).contains("profiles_replication_standbys 2.0");
		for (String replica : new String[] { "replica1", "replica2" }) {
			assertThat(scrape).containsPattern("profiles_replication_lag_bytes\\{replica=\"" + replica + "\"} \\d")
				.containsPattern("profiles_replication_replay_lag_seconds\\{replica=\"" + replica + "\"} \\d");
		}
	}

}
