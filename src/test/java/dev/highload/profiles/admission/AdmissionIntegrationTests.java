package dev.highload.profiles.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The refusal at capacity as a client sees it from the real server: with a limit of one
 * request at a time, a burst of concurrent searches gets a 503 problem with Retry-After
 * on a connection that closes for those that find no place within half the objective (on
 * a fresh JVM a search takes tens of milliseconds, so most or all of the burst), and the
 * service answers again once the burst is over.
 */
@IntegrationTest
@TestPropertySource(
		properties = { "app.admission.enabled=true", "app.admission.min-limit=1", "app.admission.max-limit=1" })
class AdmissionIntegrationTests {

	private static final int CLIENTS = 40;

	@LocalServerPort
	int port;

	@Test
	void pastTheLimitRequestsAreRefusedAtOnceWithRetryAfter() throws Exception {
		ApiClient api = new ApiClient(this.port);
		String search = "/user/search?first_name=a&last_name=b";
		// A fresh JVM takes long over its first requests, longer than a read may take to
		// reach admission: those are refused as late, until the path is warm.
		await().atMost(Duration.ofSeconds(30)).until(() -> api.get(search).status() == 200);
		List<ApiClient.Response> answers = new ArrayList<>();
		ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<ApiClient.Response>> pending = new ArrayList<>();
			for (int i = 0; i < CLIENTS; i++) {
				pending.add(clients.submit(() -> {
					start.await();
					return api.get(search);
				}));
			}
			start.countDown();
			for (Future<ApiClient.Response> answer : pending) {
				answers.add(answer.get());
			}
		}
		finally {
			clients.shutdownNow();
		}
		assertThat(answers).extracting(ApiClient.Response::status).isSubsetOf(200, 503).contains(503);
		assertThat(api.get(search).status()).as("after the burst").isEqualTo(200);
		for (ApiClient.Response refused : answers.stream().filter((a) -> a.status() == 503).toList()) {
			assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(refused.headers().firstValue("Connection")).hasValue("close");
			assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(refused.json().get("detail").asString()).isEqualTo(AdmissionFilter.DETAIL);
			assertThat(refused.json().get("instance").asString()).isEqualTo("/user/search");
			assertThat(refused.json().get("status").asInt()).isEqualTo(503);
			assertThat(refused.json().get("title").asString()).isEqualTo("Service Unavailable");
			assertThat(refused.json().get("message").asString()).isEqualTo(AdmissionFilter.DETAIL);
			assertThat(refused.json().get("code").asInt()).isEqualTo(503);
			assertThat(refused.json().get("request_id").asString())
				.isEqualTo(refused.headers().firstValue("X-Request-Id").orElseThrow());
		}
	}

}
