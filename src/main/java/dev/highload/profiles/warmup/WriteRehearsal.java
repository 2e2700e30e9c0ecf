package dev.highload.profiles.warmup;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.highload.profiles.auth.HashingOverloadedException;
import dev.highload.profiles.auth.PasswordHasher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * The writes' way through the service while the reads warm up, without a write: from one
 * thread, a registration and a login whose bodies the validation refuses (400: a
 * birthdate before 1900, an empty password), which take the write endpoints' filters,
 * body reading, JSON binding, validation and problem answers, and count against no
 * throttle (the validation refuses them before any limit or hash); and, every
 * {@value #HASH_EVERY} such pairs, a hash of a throw-away password and its check on the
 * hashing pools ({@link PasswordHasher#exercise}), {@value #HASHES} times at most.
 * Without it, a fresh service's first registration took half a second and more.
 */
final class WriteRehearsal {

	private static final Logger log = LoggerFactory.getLogger(WriteRehearsal.class);

	/** Hashing rounds at most: about two seconds of one core once compiled. */
	static final int HASHES = 40;

	/** Refused pairs between two hashing rounds. */
	static final int HASH_EVERY = 5;

	private static final String REGISTRATION = """
			{"first_name":"Warm","second_name":"Up","birthdate":"1899-12-31","biography":"warm-up",\
			"city":"Nowhere","password":"warm-up-password"}""";

	private final URI base;

	private final PasswordHasher hasher;

	private final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final Thread thread;

	private volatile boolean stopped;

	private volatile long pairs;

	private volatile long unexpected;

	private volatile long failed;

	private volatile int hashes;

	private volatile long firstHashNanos;

	private volatile long lastHashNanos;

	WriteRehearsal(URI base, PasswordHasher hasher) {
		this.base = base;
		this.hasher = hasher;
		this.thread = new Thread(this::run, "warm-up-writes");
		this.thread.setDaemon(true);
	}

	void start() {
		this.thread.start();
	}

	void stop() throws InterruptedException {
		this.stopped = true;
		this.thread.join(10_000);
	}

	private void run() {
		try {
			while (!this.stopped) {
				if (!post("/user/register", REGISTRATION)
						|| !post("/login", "{\"id\":\"" + UUID.randomUUID() + "\",\"password\":\"\"}")) {
					continue;
				}
				this.pairs++;
				if (this.pairs % HASH_EVERY == 0 && this.hashes < HASHES) {
					long nanos = this.hasher.exercise();
					this.firstHashNanos = (this.hashes == 0) ? nanos : this.firstHashNanos;
					this.lastHashNanos = nanos;
					this.hashes++;
				}
			}
		}
		catch (HashingOverloadedException | IllegalStateException ex) {
			log.warn("The writes' warm-up stopped after {} refused pairs and {} hashing rounds: {}", this.pairs,
					this.hashes, ex.toString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Whether it was answered; one not answered in time is counted, and the next is sent.
	 */
	private boolean post(String path, String body) throws InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(this.base.resolve(path))
			.timeout(Duration.ofSeconds(5))
			.header(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE)
			.header(HttpHeaders.ACCEPT, MediaType.APPLICATION_JSON_VALUE)
			.header(HttpHeaders.USER_AGENT, "user-profiles-warm-up")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		int status;
		try {
			status = this.client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (IOException ex) {
			this.failed++;
			return false;
		}
		if (status != 400 && status != 503) {
			this.unexpected++;
		}
		return true;
	}

	/** What it did, for the warm-up's log line. */
	String summary() {
		return this.pairs + " refused registrations and logins (" + this.unexpected
				+ " answered other than 400 or 503, " + this.failed + " not answered within 5 s), " + this.hashes
				+ " hashing rounds (the first " + TimeUnit.NANOSECONDS.toMillis(this.firstHashNanos) + " ms, the last "
				+ TimeUnit.NANOSECONDS.toMillis(this.lastHashNanos) + " ms)";
	}

}
