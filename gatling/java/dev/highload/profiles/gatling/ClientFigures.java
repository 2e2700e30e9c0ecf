package dev.highload.profiles.gatling;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the virtual users saw as clients, beside the latency of each request: the requests
 * the service refused at capacity and how fast it refused them, how often a registration
 * was sent again with its {@code Idempotency-Key}, and whether a user who had just
 * registered found themselves. Printed in the run's summary by
 * {@link MonitoredSimulation}.
 */
final class ClientFigures {

	/**
	 * Refusals are timed in whole milliseconds up to this; slower ones share its bucket.
	 */
	private static final int MAX_MILLIS = 60_000;

	/** Per request name, how many refusals took each number of milliseconds. */
	private static final Map<String, AtomicLongArray> refusals = new ConcurrentHashMap<>();

	private static final AtomicLong registered = new AtomicLong();

	/** Per request name, the requests that got no answer at all. */
	private static final Map<String, AtomicLong> unanswered = new ConcurrentHashMap<>();

	private static final AtomicLong retries = new AtomicLong();

	private static final AtomicLong gaveUp = new AtomicLong();

	private static final AtomicLong ownProfiles = new AtomicLong();

	private static final AtomicLong ownProfileMisses = new AtomicLong();

	private static final AtomicLong ownSearches = new AtomicLong();

	private static final AtomicLong ownSearchMisses = new AtomicLong();

	private ClientFigures() {
	}

	/**
	 * A request the service refused at capacity (503 with {@code Retry-After}).
	 * @param request its name
	 * @param millis its response time, as Gatling measured it
	 */
	static void shed(String request, int millis) {
		refusals.computeIfAbsent(request, (name) -> new AtomicLongArray(MAX_MILLIS + 1))
			.incrementAndGet(Math.max(0, Math.min(millis, MAX_MILLIS)));
	}

	/**
	 * A read that got no answer: no connection, a connection reset or closed before the
	 * answer, or the load generator's own request timeout or file limit. These are the
	 * generator's side of the failures, apart from the server's answers.
	 * @param request its name
	 */
	static void unanswered(String request) {
		unanswered.computeIfAbsent(request, (name) -> new AtomicLong()).incrementAndGet();
	}

	/**
	 * One registration settled.
	 * @param attempts the requests it took
	 * @param succeeded whether the last one answered the user's id
	 */
	static void registration(int attempts, boolean succeeded) {
		retries.addAndGet(attempts - 1);
		(succeeded ? registered : gaveUp).incrementAndGet();
	}

	/**
	 * A read of the user's own profile right after the registration.
	 * @param miss whether it answered 404
	 */
	static void ownProfile(boolean miss) {
		ownProfiles.incrementAndGet();
		if (miss) {
			ownProfileMisses.incrementAndGet();
		}
	}

	/**
	 * A search by the user's own names right after the registration.
	 * @param miss whether it answered a page without the user
	 */
	static void ownSearch(boolean miss) {
		ownSearches.incrementAndGet();
		if (miss) {
			ownSearchMisses.incrementAndGet();
		}
	}

	/**
	 * The read-your-writes misses so far: own profiles not found and own searches without
	 * the user.
	 */
	static long readYourWritesMisses() {
		return ownProfileMisses.get() + ownSearchMisses.get();
	}

	/**
	 * The summary's lines: the refusals always (bench/load-test.py reads the line), the
	 * registrations when someone registered.
	 */
	static String summary() {
		StringBuilder s = new StringBuilder(refusalLine());
		long noAnswer = unanswered.values().stream().mapToLong(AtomicLong::get).sum();
		s.append(String.format(
				"unanswered: %d reads got no answer (no connection, reset, the generator's own timeout or file limit)%n",
				noAnswer));
		if (registered.get() + gaveUp.get() == 0) {
			return s.toString();
		}
		// bench/load-test.py counts the rows whose last name carries the tag against
		// "registered".
		s.append(String.format(
				"registrations: %d registered, %d retries with the same Idempotency-Key, %d given up; last names carry '%s'%n",
				registered.get(), retries.get(), gaveUp.get(), Feeders.runTag()));
		if (ownProfiles.get() + ownSearches.get() > 0) {
			s.append(String.format(
					"read-your-writes misses: %d (own profile 404: %d of %d reads; own id not on the search page: %d of %d searches)%n",
					readYourWritesMisses(), ownProfileMisses.get(), ownProfiles.get(), ownSearchMisses.get(),
					ownSearches.get()));
		}
		return s.toString();
	}

	/**
	 * "shed: N requests answered 503 at capacity, p99 X ms (by request: ...)": counted
	 * among Gatling's failed requests, and here apart from the others.
	 */
	private static String refusalLine() {
		long[] all = new long[MAX_MILLIS + 1];
		Map<String, Long> byRequest = new TreeMap<>();
		refusals.forEach((request, counts) -> {
			long total = 0;
			for (int ms = 0; ms <= MAX_MILLIS; ms++) {
				all[ms] += counts.get(ms);
				total += counts.get(ms);
			}
			byRequest.put(request, total);
		});
		long total = byRequest.values().stream().mapToLong(Long::longValue).sum();
		if (total == 0) {
			return String.format("shed: 0 requests answered 503 at capacity%n");
		}
		StringBuilder requests = new StringBuilder();
		byRequest.forEach((request, count) -> requests.append((requests.length() > 0) ? "; " : "")
			.append(request)
			.append(": ")
			.append(count));
		return String.format("shed: %d requests answered 503 at capacity, p99 %d ms (%s)%n", total,
				percentile(all, total, 0.99), requests);
	}

	/** The smallest time that {@code share} of the refusals did not exceed. */
	private static int percentile(long[] counts, long total, double share) {
		long rank = (long) Math.ceil(share * total);
		long seen = 0;
		for (int ms = 0; ms < counts.length; ms++) {
			seen += counts[ms];
			if (seen >= rank) {
				return ms;
			}
		}
		return MAX_MILLIS;
	}

}
