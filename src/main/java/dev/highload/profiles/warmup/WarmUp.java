package dev.highload.profiles.warmup;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

/**
 * Runs the service's read paths over HTTP on its own port until the JIT compiler has
 * settled, before the service reports ready. Spring Boot calls runners after the web
 * server has started and before it publishes readiness (ACCEPTING_TRAFFIC), so the
 * readiness probe, and with it compose's healthcheck, {@code --wait} and HAProxy's check,
 * says "not ready" meanwhile: a cold instance takes no traffic.
 * <p>
 * The requests are the ones a client makes, the way the load simulations make them: each
 * client opens a connection, sends ten reads on it and closes it, as a user of
 * GetUserSimulation does, so that accepting, reading and closing connections is compiled
 * too and not only a keep-alive request (warmed on keep-alive connections alone, a fresh
 * service refused reads and answered at p99 300 ms in its first minutes of such traffic).
 * They carry the simulations' {@code Accept: application/json}, as API clients do. The
 * reads are point reads by id on both paths, searches, and a few unknown ids (their 404
 * is a path too). The ids are found by searches for common prefixes; on an empty database
 * every id is unknown. No write and no login: a warm-up must leave no row and count no
 * failure against any address.
 * <p>
 * Settled means the compiler used less than {@code app.warm-up.settled} of one core over
 * each of two seconds in a row, after {@code min-time}; {@code max-time} bounds it all.
 */
@Component
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = "app.warm-up.enabled", matchIfMissing = true)
class WarmUp implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

	/** First letters of common first and last names, Russian and English, in pairs. */
	private static final String[][] PREFIXES = { { "А", "И" }, { "А", "С" }, { "В", "П" }, { "Д", "К" }, { "Е", "М" },
			{ "И", "А" }, { "М", "В" }, { "Н", "Н" }, { "О", "Б" }, { "С", "Г" }, { "Т", "Л" }, { "A", "S" },
			{ "J", "M" }, { "M", "B" }, { "R", "W" }, { "E", "J" }, { "D", "T" } };

	private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-f-]{36})\"");

	/** The ids a warm-up reads at most: enough to leave the replicas' caches cold. */
	private static final int MAX_IDS = 2000;

	private final WarmUpProperties properties;

	private final Environment environment;

	private final ObjectProvider<TomcatServerProperties> tomcat;

	WarmUp(WarmUpProperties properties, Environment environment, ObjectProvider<TomcatServerProperties> tomcat) {
		this.properties = properties;
		this.environment = environment;
		this.tomcat = tomcat;
	}

	@Override
	public void run(ApplicationArguments args) throws InterruptedException {
		String port = this.environment.getProperty("local.server.port");
		if (port == null) {
			return;
		}
		if (this.environment.getProperty("server.ssl.enabled", Boolean.class, false)) {
			log.warn("Warm-up skipped: the API port serves TLS, and the warm-up speaks plain HTTP; "
					+ "the service reports ready cold");
			return;
		}
		String address = this.environment.getProperty("server.address", "127.0.0.1");
		if (address.equals("0.0.0.0") || address.equals("::")) {
			address = "127.0.0.1";
		}
		String host = address.contains(":") ? "[" + address + "]" : address;
		Result result = warmUp(URI.create("http://" + host + ":" + port));
		log.info(
				"Warm-up: {} requests in {} s ({} refused at capacity, {} answered other than 200, 400, 404 or 503, "
						+ "{} failed to connect); the JIT compiled for {} s, {}; ready",
				result.requests(), result.seconds(), result.refused(), result.unexpected(), result.failed(),
				result.compileSeconds(),
				result.settled() ? "then settled" : "and had not settled within " + this.properties.maxTime());
	}

	Result warmUp(URI base) throws InterruptedException {
		CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
		boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
		long compiledBefore = timed ? jit.getTotalCompilationTime() : 0;
		long start = System.nanoTime();
		int count = (this.properties.clients() != null) ? this.properties.clients()
				: this.tomcat.getIfAvailable(TomcatServerProperties::new).getThreads().getMax();
		Clients clients = new Clients(base, count);
		clients.start();
		boolean settled = false;
		try {
			long compiled = compiledBefore;
			int quietSeconds = 0;
			long deadline = start + this.properties.maxTime().toNanos();
			long earliest = start + this.properties.minTime().toNanos();
			while (System.nanoTime() < deadline) {
				Thread.sleep(1000);
				if (!timed) {
					continue;
				}
				long now = jit.getTotalCompilationTime();
				quietSeconds = (now - compiled < this.properties.settled() * 1000) ? quietSeconds + 1 : 0;
				compiled = now;
				if (quietSeconds >= 2 && System.nanoTime() >= earliest) {
					settled = true;
					break;
				}
			}
		}
		finally {
			clients.stop();
		}
		long compiledMillis = timed ? jit.getTotalCompilationTime() - compiledBefore : 0;
		return new Result(clients.requests.get(), clients.refused.get(), clients.unexpected.get(), clients.failed.get(),
				Math.round((System.nanoTime() - start) / 1e8) / 10.0, Math.round(compiledMillis / 100.0) / 10.0,
				settled);
	}

	/**
	 * What a warm-up did.
	 *
	 * @param requests answered requests
	 * @param refused answered 503: the warm-up's clients keep every request thread busy,
	 * so the admission control refuses some, as it would a real client's past capacity
	 * @param unexpected answered with another status than 200, 400, 404 or 503
	 * @param failed not answered (no connection)
	 * @param seconds how long it took
	 * @param compileSeconds the JIT's compilation time meanwhile
	 * @param settled whether the JIT settled before {@code max-time}
	 */
	record Result(long requests, long refused, long unexpected, long failed, double seconds, double compileSeconds,
			boolean settled) {

	}

	/**
	 * The warm-up's client threads. They share the JDK's cache of idle HTTP connections;
	 * after every tenth request each closes one, so that a later request opens a new
	 * connection.
	 */
	private static final class Clients {

		/** The reads a user of the simulations makes on one connection. */
		private static final int READS_PER_CONNECTION = 10;

		private final URI base;

		private final List<Thread> threads = new ArrayList<>();

		private final List<String> ids = new CopyOnWriteArrayList<>();

		private final AtomicBoolean stopped = new AtomicBoolean();

		final AtomicLong requests = new AtomicLong();

		final AtomicLong refused = new AtomicLong();

		final AtomicLong unexpected = new AtomicLong();

		final AtomicLong failed = new AtomicLong();

		Clients(URI base, int count) {
			this.base = base;
			for (int i = 0; i < count; i++) {
				int client = i;
				Thread thread = new Thread(() -> run(client), "warm-up-" + i);
				thread.setDaemon(true);
				this.threads.add(thread);
			}
		}

		void start() {
			this.threads.forEach(Thread::start);
		}

		void stop() throws InterruptedException {
			this.stopped.set(true);
			for (Thread thread : this.threads) {
				thread.join(10_000);
			}
		}

		private void run(int client) {
			for (long i = client; !this.stopped.get(); i++) {
				send(next(i), (i + 1) % READS_PER_CONNECTION == 0);
			}
		}

		/**
		 * Mostly point reads, as a profile service serves; a search in ten, an unknown id
		 * in fifty, and only unknown ids until a search has found some.
		 */
		private String next(long i) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			String path = (i % 10 == 2) ? "/user/get/" : "/user/";
			if (i % 10 == 0) {
				String[] names = PREFIXES[(int) ((i / 10) % PREFIXES.length)];
				return "/user/search?first_name=" + URLEncoder.encode(names[0], StandardCharsets.UTF_8) + "&last_name="
						+ URLEncoder.encode(names[1], StandardCharsets.UTF_8) + "&limit=" + (10 + random.nextInt(91));
			}
			if (i % 50 == 1 || this.ids.isEmpty()) {
				return path + UUID.randomUUID();
			}
			return path + this.ids.get(random.nextInt(this.ids.size()));
		}

		private void send(String path, boolean last) {
			try {
				HttpURLConnection connection = (HttpURLConnection) this.base.resolve(path).toURL().openConnection();
				connection.setConnectTimeout(2000);
				connection.setReadTimeout(5000);
				connection.setRequestProperty("User-Agent", "user-profiles-warm-up");
				// An API client's Accept, as the simulations send it: input/JsonAnswers
				// then presets the content type, the path every such read takes.
				// HttpURLConnection's own Accept would warm another path.
				connection.setRequestProperty(HttpHeaders.ACCEPT, MediaType.APPLICATION_JSON_VALUE);
				int status = connection.getResponseCode();
				String body;
				// Read whole, so that the connection goes back to the cache for the next
				// read.
				try (InputStream in = (status < 400) ? connection.getInputStream() : connection.getErrorStream()) {
					body = (in != null) ? new String(in.readAllBytes(), StandardCharsets.UTF_8) : "";
				}
				if (last) {
					// The client closes, as a virtual user does when it ends.
					connection.disconnect();
				}
				this.requests.incrementAndGet();
				if (status == 503) {
					this.refused.incrementAndGet();
				}
				else if (status != 200 && status != 400 && status != 404) {
					this.unexpected.incrementAndGet();
				}
				else if (status == 200 && path.startsWith("/user/search") && this.ids.size() < MAX_IDS) {
					// One copy of the shared list per answer, not one per id.
					List<String> found = new ArrayList<>();
					Matcher id = ID.matcher(body);
					while (id.find() && this.ids.size() + found.size() < MAX_IDS) {
						found.add(id.group(1));
					}
					this.ids.addAll(found);
				}
			}
			catch (IOException ex) {
				this.failed.incrementAndGet();
				pause();
			}
		}

		private void pause() {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.stopped.set(true);
			}
		}

	}

}
