package dev.highload.profiles.user;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Deletes expired Idempotency-Keys every {@code app.registration.key-cleanup-interval},
 * on a thread of its own, in batches of {@code app.registration.key-cleanup-batch}, each
 * its own short transaction ({@link Registrations#deleteExpiredKeys}), repeated while
 * they come back full. Rows are taken with {@code SKIP LOCKED}, so only the rows being
 * deleted are locked, never the table, registrations are not waited for, and two
 * instances of the service may clean up at the same time. A failure (the primary down, a
 * commit unconfirmed) is logged and the run ends; the next one starts over.
 * {@code profiles.registrations.keys.deleted} counts the deleted keys.
 */
@Component
class RegistrationKeyCleanup implements DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(RegistrationKeyCleanup.class);

	private final Registrations registrations;

	private final RegistrationProperties properties;

	private final Counter deleted;

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "registration-key-cleanup");
		thread.setDaemon(true);
		return thread;
	});

	RegistrationKeyCleanup(Registrations registrations, RegistrationProperties properties,
			MeterRegistry meterRegistry) {
		this.registrations = registrations;
		this.properties = properties;
		this.deleted = Counter.builder("profiles.registrations.keys.deleted")
			.description("Expired Idempotency-Keys deleted by the cleanup")
			.register(meterRegistry);
	}

	/** Starts the schedule once the service serves, not while it starts. */
	@EventListener(ApplicationReadyEvent.class)
	void schedule() {
		long interval = this.properties.keyCleanupInterval().toMillis();
		this.scheduler.scheduleWithFixedDelay(this::deleteExpired, interval, interval, TimeUnit.MILLISECONDS);
	}

	/**
	 * One run: batches until one comes back short.
	 * @return the keys deleted, also when the run ended in a failure
	 */
	int deleteExpired() {
		int batch = this.properties.keyCleanupBatch();
		int total = 0;
		try {
			int count;
			do {
				count = this.registrations.deleteExpiredKeys(batch);
				total += count;
				this.deleted.increment(count);
			}
			while (count == batch);
		}
		catch (RuntimeException ex) {
			log.warn("Could not delete expired Idempotency-Keys ({} deleted in this run): {}", total, ex.toString());
		}
		return total;
	}

	@Override
	public void destroy() {
		this.scheduler.shutdownNow();
	}

}
