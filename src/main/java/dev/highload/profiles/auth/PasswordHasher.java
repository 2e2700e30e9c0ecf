package dev.highload.profiles.auth;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Argon2id at OWASP's minimum (19 MiB, 2 iterations, 1 lane): tens of milliseconds of one
 * core per hash (about 24 ms on the development machine). Hashing runs on small pools,
 * one thread per core each by default, and at most as many hashes as one pool has threads
 * run at once, both kinds together, taking turns: a flood of registrations and logins
 * waits there instead of taking every core from the reads, and a flood of both takes no
 * more cores than one. A request holds its request thread while its hash waits and runs,
 * so at most {@link AuthProperties#hashQueue()} of each kind wait at once and the next is
 * refused with 503 at once: a flood of both kinds cannot take the request threads from
 * the reads (WriteFloodIntegrationTests). Registrations and logins each have their own
 * pool and places ({@link Work}): wrong passwords sent from many addresses take the
 * logins' places and are refused past them, while registrations keep theirs.
 */
@Component
public class PasswordHasher implements DisposableBean {

	/** Whose hashing it is: each has its own threads and queue. */
	public enum Work {

		/** A new user's hash, and the check of a registration sent again. */
		REGISTRATION,
		/** The check of a login's password. */
		LOGIN

	}

	private static final int SALT_BYTES = 16;

	private static final int HASH_BYTES = 32;

	private static final int MEMORY_KIB = 19 * 1024;

	private static final int ITERATIONS = 2;

	private final Argon2id encoder = new Argon2id(SALT_BYTES, HASH_BYTES, MEMORY_KIB, ITERATIONS);

	private final Map<Work, ThreadPoolExecutor> pools = new EnumMap<>(Work.class);

	/** Places for the requests that wait on a hash, queued or hashing, of each kind. */
	private final Map<Work, Semaphore> places = new EnumMap<>(Work.class);

	/**
	 * The hashes that may run at once, both kinds together, taken in turn: a flood of
	 * both takes no more cores than one of them.
	 */
	private final Semaphore running;

	private final Timer hashTime;

	private final Timer verifyTime;

	PasswordHasher(AuthProperties properties, MeterRegistry meterRegistry) {
		int threads = (properties.hashThreads() > 0) ? properties.hashThreads()
				: Runtime.getRuntime().availableProcessors();
		for (Work work : Work.values()) {
			String name = work.name().toLowerCase(Locale.ROOT);
			AtomicInteger count = new AtomicInteger();
			ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS,
					new ArrayBlockingQueue<>(properties.hashQueue()), (task) -> {
						Thread thread = new Thread(task, "password-hash-" + name + "-" + count.incrementAndGet());
						thread.setDaemon(true);
						return thread;
					}, new ThreadPoolExecutor.AbortPolicy());
			ExecutorServiceMetrics.monitor(meterRegistry, pool, "password-hash", Tags.of("work", name));
			this.pools.put(work, pool);
			this.places.put(work, new Semaphore(properties.hashQueue()));
		}
		this.running = new Semaphore(threads, true);
		this.hashTime = hashTimer(meterRegistry, "hash");
		this.verifyTime = hashTimer(meterRegistry, "verify");
	}

	/**
	 * The time a hash takes on its thread, queueing excluded: the figure the registration
	 * benchmark divides the cores by to get the hashing ceiling.
	 */
	private static Timer hashTimer(MeterRegistry meterRegistry, String operation) {
		return Timer.builder("profiles.password.hash")
			.description("Argon2id work on the hashing pool, without the wait in its queue")
			.tag("operation", operation)
			.register(meterRegistry);
	}

	/**
	 * @param password a raw password
	 * @return its encoded Argon2id hash with parameters and salt, made on the
	 * registrations' pool
	 * @throws HashingOverloadedException if too many hashes are waiting already
	 */
	public String hash(String password) {
		return hashed(Work.REGISTRATION, () -> this.hashTime.recordCallable(() -> this.encoder.hash(password)));
	}

	/**
	 * @param work whose check it is: it runs on that pool
	 * @param password a raw password
	 * @param encodedHash a hash from {@link #hash}
	 * @return whether they match
	 * @throws HashingOverloadedException if too many hashes of that work are waiting
	 * already
	 */
	public boolean matches(Work work, String password, String encodedHash) {
		return hashed(work, () -> this.verifyTime.recordCallable(() -> this.encoder.matches(password, encodedHash)));
	}

	/**
	 * Runs the task on its kind's pool and waits for it, if one of the kind's places is
	 * free.
	 */
	private <T> T hashed(Work work, Callable<T> task) {
		Semaphore place = this.places.get(work);
		if (!place.tryAcquire()) {
			throw new HashingOverloadedException();
		}
		try {
			return await(submit(work, () -> whenACoreIsFree(task)));
		}
		finally {
			place.release();
		}
	}

	/**
	 * Hashes a throw-away password on the registrations' pool and checks it on the
	 * logins' pool, as a registration and a login would, recording neither in the hashing
	 * timers: the work of {@link HashingWarmUp}.
	 * @return the nanoseconds the two took, their waits included
	 */
	long exercise() {
		long start = System.nanoTime();
		String password = "warm-up-" + start;
		String encoded = hashed(Work.REGISTRATION, () -> this.encoder.hash(password));
		if (!hashed(Work.LOGIN, () -> this.encoder.matches(password, encoded))) {
			throw new IllegalStateException("A hash made here did not verify");
		}
		return System.nanoTime() - start;
	}

	private <T> T whenACoreIsFree(Callable<T> task) throws Exception {
		this.running.acquire();
		try {
			return task.call();
		}
		finally {
			this.running.release();
		}
	}

	private <T> Future<T> submit(Work work, Callable<T> task) {
		try {
			return this.pools.get(work).submit(task);
		}
		catch (RejectedExecutionException ex) {
			throw new HashingOverloadedException();
		}
	}

	private static <T> T await(Future<T> future) {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			future.cancel(true);
			throw new IllegalStateException("Interrupted while hashing", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Password hashing failed", ex.getCause());
		}
	}

	@Override
	public void destroy() {
		this.pools.values().forEach(ThreadPoolExecutor::shutdownNow);
	}

}
