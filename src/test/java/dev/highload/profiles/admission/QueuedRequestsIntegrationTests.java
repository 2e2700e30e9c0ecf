package dev.highload.profiles.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.IntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The wait before admission, as the real server has it: with two request threads, four
 * logins hold both for two rounds of password hashes while reads arrive behind them in
 * Tomcat's queue. A read that has waited longer than three fifths of the objective by the
 * time a thread takes it is refused at once with 503 and Retry-After (counted as late),
 * not served late; the logins, which keep their share, are answered. (The four logins are
 * one client's to one account: the limit on such logins at once is off here.)
 */
@IntegrationTest
@TestPropertySource(
		properties = { "app.admission.enabled=true", "server.tomcat.threads.max=2", "server.tomcat.threads.min-spare=2",
				"app.auth.throttle.logins-at-once-per-account=0", "app.auth.throttle.logins-at-once-per-client=0" })
class QueuedRequestsIntegrationTests {

	private static final int LOGINS = 4;

	private static final int READS = 6;

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry registry;

	@Test
	void readsThatWaitedForAThreadPastTheirAllowanceAreRefusedAtOnce() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String password = "queued requests";
		UUID id = api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), password);
		String login = ApiClient.toJson(Map.of("id", id.toString(), "password", password));
		double lateBefore = this.registry.get("admission.late").counter().count();
		ExecutorService clients = Executors.newFixedThreadPool(LOGINS + READS);
		try {
			List<Future<ApiClient.Response>> logins = new ArrayList<>();
			for (int i = 0; i < LOGINS; i++) {
				logins.add(clients.submit(() -> api.post("/login", login)));
			}
			// Both threads are in a login, hashing for tens of milliseconds; two more
			// logins
			// wait for them.
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> this.registry.get("admission.running").gauge().value() >= 2);
			List<Future<ApiClient.Response>> reads = new ArrayList<>();
			for (int i = 0; i < READS; i++) {
				reads.add(clients.submit(() -> api.get("/user/" + id)));
			}
			for (Future<ApiClient.Response> answer : logins) {
				assertThat(answer.get().status()).isEqualTo(200);
			}
			List<ApiClient.Response> answers = new ArrayList<>();
			for (Future<ApiClient.Response> answer : reads) {
				answers.add(answer.get());
			}
			assertThat(answers).extracting(ApiClient.Response::status).isSubsetOf(200, 503).contains(503);
			long refused = answers.stream().filter((answer) -> answer.status() == 503).count();
			for (ApiClient.Response answer : answers.stream().filter((a) -> a.status() == 503).toList()) {
				assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(answer.json().get("detail").asString()).isEqualTo(AdmissionFilter.DETAIL);
			}
			assertThat(this.registry.get("admission.late").counter().count() - lateBefore)
				.as("refused for their wait, not by the limit")
				.isEqualTo(refused);
			assertThat(this.registry.get("admission.queued").timer().max(TimeUnit.MILLISECONDS)).isGreaterThan(30);
		}
		finally {
			clients.shutdownNow();
		}
	}

}
