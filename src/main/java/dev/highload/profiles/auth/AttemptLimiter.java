package dev.highload.profiles.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts attempts per key (an account, a client address) in fixed windows that start at a
 * key's first attempt. The first {@code limit} attempts of a window go through; what
 * happens past them depends on how the limiter was made:
 * <ul>
 * <li>{@linkplain #AttemptLimiter(int, Duration, int, Clock) a hard limit}: nothing more
 * until the window ends;</li>
 * <li>{@linkplain #AttemptLimiter(int, Duration, Duration, Duration, int, Clock) growing
 * delays}: one more attempt once a delay has passed since the key's last attempt, the
 * delay doubling with each attempt past the limit up to a cap. A refused attempt changes
 * nothing, so knocking during a delay does not extend it.</li>
 * </ul>
 * An attempt is counted when it is let through, so requests in flight at the same time
 * cannot exceed the limit together; {@link #release} takes back one that turned out not
 * to count, {@link #reset} forgets a key.
 * <p>
 * Memory is bounded: at most {@code capacity} keys are kept, and beyond that the key used
 * least recently is forgotten. Flooding the limiter with new keys can therefore only
 * evict other keys' counts, and each new key costs the flooder an attempt that the other
 * limits (per address, the hashing queue) still count.
 */
final class AttemptLimiter {

	private final int limit;

	private final long windowMillis;

	/** 0 for a hard limit. */
	private final long firstDelayMillis;

	private final long maxDelayMillis;

	private final Clock clock;

	private final Map<String, Window> windows;

	/**
	 * A hard limit: past {@code limit} attempts, a key waits for the end of its window.
	 * @param limit attempts allowed per key in a window; 0 lets everything through
	 * @param window the length of a window
	 * @param capacity the most keys kept
	 * @param clock the time source
	 */
	AttemptLimiter(int limit, Duration window, int capacity, Clock clock) {
		this(limit, window, 0, 0, capacity, clock);
	}

	/**
	 * Growing delays: past {@code limit} attempts in a window, a key's next attempt waits
	 * {@code firstDelay} after its last one, and each attempt after that twice as long as
	 * the one before, at most {@code maxDelay}.
	 * @param limit attempts allowed per key in a window without delay; 0 lets everything
	 * through
	 * @param window the length of a window; when it ends, the key starts afresh
	 * @param firstDelay the first delay, positive
	 * @param maxDelay the longest delay, at least {@code firstDelay}
	 * @param capacity the most keys kept
	 * @param clock the time source
	 */
	AttemptLimiter(int limit, Duration window, Duration firstDelay, Duration maxDelay, int capacity, Clock clock) {
		this(limit, window, firstDelay.toMillis(), maxDelay.toMillis(), capacity, clock);
		if (firstDelay.toMillis() < 1 || maxDelay.compareTo(firstDelay) < 0) {
			throw new IllegalArgumentException(
					"the first delay must be at least 1 ms and the longest at least as long");
		}
	}

	private AttemptLimiter(int limit, Duration window, long firstDelayMillis, long maxDelayMillis, int capacity,
			Clock clock) {
		if (limit < 0 || window.isNegative() || window.isZero() || capacity < 1) {
			throw new IllegalArgumentException("limit must be >= 0, window positive and capacity >= 1");
		}
		this.limit = limit;
		this.windowMillis = window.toMillis();
		this.firstDelayMillis = firstDelayMillis;
		this.maxDelayMillis = maxDelayMillis;
		this.clock = clock;
		this.windows = new LinkedHashMap<>(Math.min(capacity, 1024), 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
				return size() > capacity;
			}

		};
	}

	/**
	 * Counts an attempt for the key unless the key must wait.
	 * @param key whose attempt
	 * @return 0 if the attempt may go ahead (it is counted), otherwise the whole seconds
	 * until the key may try again (at least 1)
	 */
	synchronized long tryAcquire(String key) {
		if (this.limit == 0) {
			return 0;
		}
		long now = this.clock.millis();
		Window window = this.windows.get(key);
		if (window == null || now >= window.start + this.windowMillis) {
			window = new Window(now);
			this.windows.put(key, window);
		}
		if (window.count >= this.limit) {
			long opens = window.start + this.windowMillis;
			if (this.firstDelayMillis > 0) {
				opens = Math.min(opens, window.last + delayMillis(window.count - this.limit));
			}
			if (now < opens) {
				return Math.max(1, (opens - now + 999) / 1000);
			}
		}
		window.count++;
		window.last = now;
		return 0;
	}

	/**
	 * The delay after {@code beyond} attempts past the limit: doubled each time, capped.
	 */
	private long delayMillis(int beyond) {
		long delay = this.firstDelayMillis;
		for (int i = 0; i < beyond && delay < this.maxDelayMillis; i++) {
			delay = (delay > this.maxDelayMillis / 2) ? this.maxDelayMillis : delay * 2;
		}
		return delay;
	}

	/**
	 * Takes back one attempt counted by {@link #tryAcquire}. A delay that attempt started
	 * still runs, but the next one is no longer than before it.
	 */
	synchronized void release(String key) {
		Window window = this.windows.get(key);
		if (window != null && window.count > 0) {
			window.count--;
		}
	}

	/** Forgets the key's attempts. */
	synchronized void reset(String key) {
		this.windows.remove(key);
	}

	/** Keys currently kept. */
	synchronized int size() {
		return this.windows.size();
	}

	private static final class Window {

		final long start;

		int count;

		/** When the last attempt was let through. */
		long last;

		Window(long start) {
			this.start = start;
		}

	}

}
