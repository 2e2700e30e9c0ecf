package dev.highload.profiles;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that send a request's headers and then trickle its body, a byte a second: they
 * must hold neither Tomcat's threads nor the admission limit's room for registrations and
 * logins, and each is closed once its body is late ({@code app.web.request-body-timeout},
 * 5 s). 300 of them, from addresses of their own, each reconnecting when closed, for
 * {@code -Dit.slow-bodies.seconds} (20 by default; issue 49 asks 60), while 50
 * registrations and 50 logins come from another client. Admission control on, as shipped.
 */
@IntegrationTest
@TestPropertySource(properties = "app.admission.enabled=true")
class SlowBodyIntegrationTests {

	private static final int SLOW_CLIENTS = 300;

	private static final Duration CLOSED_WITHIN = Duration.ofSeconds(10);

	private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(10);

	@LocalServerPort
	int port;

	@Autowired
	MeterRegistry meterRegistry;

	@Test
	void bodiesThatTrickleHoldNoThreadAndNoPlaceAndAreClosedInTime() throws Exception {
		ApiClient api = new ApiClient(this.port);
		List<UUID> users = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			users.add(api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password"));
		}
		long seconds = Long.getLong("it.slow-bodies.seconds", 20);
		Trickle trickle = new Trickle(this.port, SLOW_CLIENTS, Duration.ofSeconds(seconds));
		ExecutorService runner = Executors.newSingleThreadExecutor();
		List<String> late = new ArrayList<>();
		List<String> answers = new ArrayList<>();
		try {
			Future<?> trickling = runner.submit(() -> {
				trickle.run();
				return null;
			});
			Thread.sleep(2_000);
			// 5 a second: 50 registrations and 50 logins, each answered in time.
			long spacing = Math.max(0, (seconds - 4) * 1000 / 100);
			for (int i = 0; i < 50; i++) {
				time(late, answers, "registration " + i, () -> api.post("/user/register",
						ApiClient.registration(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password")));
				Thread.sleep(spacing);
				UUID user = users.get(i);
				time(late, answers, "login " + i, () -> api.post("/login",
						ApiClient.toJson(java.util.Map.of("id", user.toString(), "password", "secret-password"))));
				Thread.sleep(spacing);
			}
			trickling.get(seconds + 30, TimeUnit.SECONDS);
		}
		finally {
			trickle.stop();
			runner.shutdownNow();
		}
		assertThat(answers).as("the registrations and logins of the other client").hasSize(100).containsOnly("200");
		assertThat(late).as("answered later than %s", ANSWERED_WITHIN).isEmpty();
		assertThat(trickle.opened).as("slow connections opened").isGreaterThanOrEqualTo(SLOW_CLIENTS);
		assertThat(trickle.closedLate).as("slow connections open longer than %s", CLOSED_WITHIN).isEmpty();
		assertThat(trickle.firstAnswer).startsWith("HTTP/1.1 408 ")
			.containsIgnoringCase("Connection: close")
			.contains("application/problem+json")
			.contains("\"status\":408");
		assertThat(this.meterRegistry.get("profiles.request.body.timeout").counter().count())
			.isGreaterThanOrEqualTo(SLOW_CLIENTS);
	}

	@Test
	void theDispatchAfterABodyRunsEveryFilter() {
		ApiClient api = new ApiClient(this.port);
		ApiClient.Response notPlain = api.post("/user/register;x=1",
				ApiClient.registration("A", "B", "secret-password"), "X-Request-Id", "slow-body-check");
		assertThat(notPlain.status()).as("CanonicalPathFilter on a POST").isEqualTo(400);
		assertThat(notPlain.headers().firstValue("X-Request-Id")).hasValue("slow-body-check");
		assertThat(notPlain.json().path("request_id").asString()).isEqualTo("slow-body-check");
		// A write's admission ends "ignored": it does not teach the limit.
		double admittedWrites = this.meterRegistry.get("admission.call").tag("status", "ignored").counter().count();
		api.register(ApiClient.uniqueName(), ApiClient.uniqueName(), "secret-password");
		assertThat(this.meterRegistry.find("http.server.requests")
			.tag("method", "POST")
			.tag("uri", "/user/register")
			.tag("status", "200")
			.timer()).as("RequestMetricsFilter on a POST").isNotNull();
		assertThat(this.meterRegistry.get("admission.call").tag("status", "ignored").counter().count())
			.as("AdmissionFilter on a POST")
			.isGreaterThan(admittedWrites);
	}

	private static void time(List<String> late, List<String> answers, String what,
			java.util.function.Supplier<ApiClient.Response> request) {
		long start = System.nanoTime();
		ApiClient.Response response = request.get();
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		answers.add(Integer.toString(response.status()));
		if (took.compareTo(ANSWERED_WITHIN) > 0) {
			late.add(what + " took " + took.toMillis() + " ms");
		}
	}

	/**
	 * The slow clients: each sends a registration's headers, then one byte of its body a
	 * second; a connection the service closes is replaced by a new one until the time is
	 * up.
	 */
	private static final class Trickle {

		private static final byte[] BODY = ApiClient.registration("Slow", "Client", "secret-password")
			.getBytes(StandardCharsets.UTF_8);

		private static final byte[] HEADERS = ("POST /user/register HTTP/1.1\r\nHost: 127.0.0.1\r\n"
				+ "Content-Type: application/json\r\nContent-Length: " + BODY.length + "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);

		private final int port;

		private final int clients;

		private final Duration duration;

		private final List<Slow> open = new ArrayList<>();

		private volatile boolean stopped;

		int opened;

		final List<String> closedLate = new ArrayList<>();

		volatile String firstAnswer = "";

		Trickle(int port, int clients, Duration duration) {
			this.port = port;
			this.clients = clients;
			this.duration = duration;
		}

		void run() throws IOException, InterruptedException {
			long end = System.nanoTime() + this.duration.toNanos();
			for (int i = 0; i < this.clients; i++) {
				this.open.add(connect(i));
			}
			while (!this.stopped && (System.nanoTime() < end || !this.open.isEmpty())) {
				long now = System.nanoTime();
				for (int i = 0; i < this.open.size(); i++) {
					Slow slow = this.open.get(i);
					if (!slow.step()) {
						continue;
					}
					Duration lived = Duration.ofNanos(now - slow.started);
					if (lived.compareTo(CLOSED_WITHIN) > 0) {
						this.closedLate.add("slow client " + slow.index + " closed after " + lived.toMillis() + " ms");
					}
					if (this.firstAnswer.isEmpty()) {
						this.firstAnswer = slow.answer.toString();
					}
					if (now < end) {
						this.open.set(i, connect(slow.index));
					}
					else {
						this.open.remove(i--);
					}
				}
				for (Slow slow : this.open) {
					if (Duration.ofNanos(now - slow.started).compareTo(CLOSED_WITHIN.plusSeconds(5)) > 0) {
						this.closedLate.add("slow client " + slow.index + " still open after 15 s");
						this.stopped = true;
					}
				}
				Thread.sleep(1_000);
			}
			for (Slow slow : this.open) {
				slow.channel.close();
			}
		}

		void stop() {
			this.stopped = true;
		}

		private Slow connect(int index) throws IOException {
			SocketChannel channel = SocketChannel.open();
			channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
			channel.bind(new InetSocketAddress("127.0.0." + (100 + index % 100), 0));
			channel.connect(new InetSocketAddress("127.0.0.1", this.port));
			channel.write(ByteBuffer.wrap(HEADERS));
			channel.configureBlocking(false);
			this.opened++;
			return new Slow(index, channel, System.nanoTime());
		}

		/** One slow connection. */
		private static final class Slow {

			final int index;

			final SocketChannel channel;

			final long started;

			final StringBuilder answer = new StringBuilder();

			private int sent;

			Slow(int index, SocketChannel channel, long started) {
				this.index = index;
				this.channel = channel;
				this.started = started;
			}

			/** Reads what came, sends the next byte; true once the service has closed. */
			boolean step() throws IOException {
				ByteBuffer buffer = ByteBuffer.allocate(1024);
				try {
					int read;
					while ((read = this.channel.read(buffer)) > 0) {
						this.answer.append(new String(buffer.array(), 0, read, StandardCharsets.ISO_8859_1));
						buffer.clear();
					}
					if (read == -1) {
						this.channel.close();
						return true;
					}
					if (this.sent < BODY.length - 1) {
						this.channel.write(ByteBuffer.wrap(BODY, this.sent, 1));
						this.sent++;
					}
					return false;
				}
				catch (IOException ex) {
					// Reset by the service: closed.
					this.channel.close();
					return true;
				}
			}

		}

	}

}
