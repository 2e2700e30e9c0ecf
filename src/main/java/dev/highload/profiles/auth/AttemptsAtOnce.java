package dev.highload.profiles.auth;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many attempts of each key are running at once, each key up to a maximum. A key is
 * kept only while it has an attempt running, so memory is bounded by the requests in
 * flight, whatever keys an attacker sends.
 */
final class AttemptsAtOnce {

	private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

	private final int max;

	/**
	 * @param max the most attempts of one key at once; 0 for no limit
	 */
	AttemptsAtOnce(int max) {
		this.max = max;
	}

	/**
	 * @param key whose attempt it is
	 * @return whether it may run: if so, {@link #leave} must follow
	 */
	boolean tryEnter(String key) {
		if (this.max == 0) {
			return true;
		}
		boolean[] entered = new boolean[1];
		this.running.compute(key, (k, count) -> {
			int now = (count != null) ? count : 0;
			entered[0] = now < this.max;
			return entered[0] ? now + 1 : count;
		});
		return entered[0];
	}

	/**
	 * @param key whose attempt ended, after a {@link #tryEnter} that returned true
	 */
	void leave(String key) {
		if (this.max == 0) {
			return;
		}
		this.running.computeIfPresent(key, (k, count) -> (count > 1) ? count - 1 : null);
	}

}
