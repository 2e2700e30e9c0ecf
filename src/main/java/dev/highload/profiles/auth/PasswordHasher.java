package dev.highload.profiles.auth;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Argon2id at OWASP's minimum (19 MiB, 2 iterations, 1 lane): tens of milliseconds of one
 * core per hash (about 24 ms on the development machine). Hashing runs on its own small
 * pool with a bounded queue, one thread per core by default, so a flood of registrations
 * or logins queues there, then gets 503, instead of taking every core from the reads.
 */
@Component
public class PasswordHasher implements DisposableBean {

	private static final int SALT_BYTES = 16;

	private static final int HASH_BYTES = 32;

	private static final int MEMORY_KIB = 19 * 1024;

	private static final int ITERATIONS = 2;

	private final Argon2id encoder = new Argon2id(SALT_BYTES, HASH_BYTES, MEMORY_KIB, ITERATIONS);

	private final ThreadPoolExecutor pool;

	private final Timer hashTime;

	private final Timer verifyTime;

	PasswordHasher(AuthProperties properties, MeterRegistry meterRegistry) {
		int threads = (properties.hashThreads() > 0) ? properties.hashThreads()
				: Runtime.getRuntime().availableProcessors();
		AtomicInteger count = new AtomicInteger();
		this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS,
				new ArrayBlockingQueue<>(properties.hashQueue()), (task) -> {
					Thread thread = new Thread(task, "password-hash-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				}, new ThreadPoolExecutor.AbortPolicy());
		ExecutorServiceMetrics.monitor(meterRegistry, this.pool, "password-hash");
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
	 * @return its encoded Argon2id hash with parameters and salt
	 * @throws HashingOverloadedException if too many hashes are waiting already
	 */
	public String hash(String password) {
		return await(submit(() -> this.hashTime.recordCallable(() -> this.encoder.hash(password))));
	}

	/**
	 * @param password a raw password
	 * @param encodedHash a hash from {@link #hash}
	 * @return whether they match
	 * @throws HashingOverloadedException if too many hashes are waiting already
	 */
	public boolean matches(String password, String encodedHash) {
		return await(submit(() -> this.verifyTime.recordCallable(() -> this.encoder.matches(password, encodedHash))));
	}

	private <T> Future<T> submit(Callable<T> task) {
		try {
			return this.pool.submit(task);
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
		this.pool.shutdownNow();
	}

}
