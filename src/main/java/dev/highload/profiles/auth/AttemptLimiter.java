package dev.highload.profiles.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Counts attempts per key (an account, a client address) in fixed windows that start at a
 * key's first attempt. An attempt is counted when it is let through, so requests in
 * flight at the same time cannot exceed the limit together; {@link #release} takes back
 * one that turned out not to count, {@link #reset} forgets a key.
 * <p>
 * Memory is bounded: at most {@code capacity} keys are kept, and beyond that the key used
 * least recently is forgotten. Flooding the limiter with new keys can therefore only
 * evict other keys' counts, and each new key costs the flooder an attempt that the other
 * limits (per address, the hashing queue) still count.
 */
final class AttemptLimiter {

	private final int limit;

	private final long windowMillis;

	private final Clock clock;

	private final Map<String, Window> windows;

	/**
	 * @param limit attempts allowed per key in a window; 0 lets everything through
	 * @param window the length of a window
	 * @param capacity the most keys kept
	 * @param clock the time source
	 */
	AttemptLimiter(int limit, Duration window, int capacity, Clock clock) {
		if (limit < 0 || window.isNegative() || window.isZero() || capacity < 1) {
			throw new IllegalArgumentException("limit must be >= 0, window positive and capacity >= 1");
		}
		this.limit = limit;
		this.windowMillis = window.toMillis();
		this.clock = clock;
		this.windows = new LinkedHashMap<>(Math.min(capacity, 1024), 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
				return size() > capacity;
			}

		};
	}

	/**
	 * Counts an attempt for the key unless the key has used up its window.
	 * @param key whose attempt
	 * @return 0 if the attempt may go ahead (it is counted), otherwise the whole seconds
	 * until the key's window ends (at least 1)
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
			return Math.max(1, (window.start + this.windowMillis - now + 999) / 1000);
		}
		window.count++;
		return 0;
	}

	/** Takes back one attempt counted by {@link #tryAcquire}. */
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

	boolean enabled() {
		return this.limit > 0;
	}

	private static final class Window {

		final long start;

		int count;

		Window(long start) {
			this.start = start;
		}

	}

}
