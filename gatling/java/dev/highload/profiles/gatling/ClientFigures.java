package dev.highload.profiles.gatling;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the virtual users saw as clients: the requests the service refused at capacity and
 * how fast it refused them, how fast it answered the others with a 200, how often a
 * registration was sent again with its {@code Idempotency-Key}, and whether a user who
 * had just registered found themselves. Printed in the run's summary by
 * {@link MonitoredSimulation}.
 * <p>
 * The times are counted per whole millisecond, so their percentiles are exact. Gatling's
 * own percentiles are t-digest estimates (3.15: an AVL-tree digest per request name and
 * for the run), which on integer milliseconds can place a p99 several milliseconds above
 * every request that was that slow; the bench scripts judge by these instead.
 */
final class ClientFigures {

	/**
	 * Times are counted in whole milliseconds up to this; slower ones share its bucket.
	 */
	private static final int MAX_MILLIS = 60_000;

	/** Per request name, how many refusals took each number of milliseconds. */
	private static final Map<String, AtomicLongArray> refusals = new ConcurrentHashMap<>();

	/** Per request name, how many 200 answers took each number of milliseconds. */
	private static final Map<String, AtomicLongArray> answers = new ConcurrentHashMap<>();

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
		count(refusals, request, millis);
	}

	/**
	 * A request the service answered with a 200.
	 * @param request its name
	 * @param millis its response time, as Gatling measured it
	 */
	static void answered(String request, int millis) {
		count(answers, request, millis);
	}

	static void count(Map<String, AtomicLongArray> times, String request, int millis) {
		times.computeIfAbsent(request, (name) -> new AtomicLongArray(MAX_MILLIS + 1))
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
	 * The summary's lines: the refusals and the 200 answers always (bench/common.py reads
	 * them), the registrations when someone registered.
	 */
	static String summary() {
		StringBuilder s = new StringBuilder(refusalLine(refusals)).append(answerLine(answers));
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
	 * "shed: N requests answered 503 at capacity, p99 X ms (by request: NAME: n, p99 Y
	 * ms; ...)": counted among Gatling's failed requests, and here apart from the others.
	 */
	static String refusalLine(Map<String, AtomicLongArray> refusals) {
		Times all = Times.of(refusals);
		if (all.total == 0) {
			return String.format("shed: 0 requests answered 503 at capacity%n");
		}
		return String.format("shed: %d requests answered 503 at capacity, p99 %d ms (%s)%n", all.total,
				all.percentile(0.99), all.byRequest());
	}

	/**
	 * "answered: N requests answered 200, p50 A ms, p95 B ms, p99 C ms, max D ms (by
	 * request: NAME: n, p99 X ms; ...)", exact.
	 */
	static String answerLine(Map<String, AtomicLongArray> answers) {
		Times all = Times.of(answers);
		if (all.total == 0) {
			return String.format("answered: 0 requests answered 200%n");
		}
		return String.format("answered: %d requests answered 200, p50 %d ms, p95 %d ms, p99 %d ms, max %d ms (%s)%n",
				all.total, all.percentile(0.5), all.percentile(0.95), all.percentile(0.99), all.max(), all.byRequest());
	}

	/** Counts per millisecond, of one request name or of all together. */
	private static final class Times {

		final long[] counts = new long[MAX_MILLIS + 1];

		long total;

		final Map<String, Times> byRequest = new TreeMap<>();

		static Times of(Map<String, AtomicLongArray> times) {
			Times all = new Times();
			times.forEach((request, counts) -> {
				Times one = new Times();
				for (int ms = 0; ms <= MAX_MILLIS; ms++) {
					long n = counts.get(ms);
					one.counts[ms] = n;
					one.total += n;
					all.counts[ms] += n;
				}
				all.total += one.total;
				all.byRequest.put(request, one);
			});
			return all;
		}

		/** The smallest time that {@code share} of the requests did not exceed. */
		int percentile(double share) {
			long rank = (long) Math.ceil(share * this.total);
			long seen = 0;
			for (int ms = 0; ms < this.counts.length; ms++) {
				seen += this.counts[ms];
				if (seen >= rank) {
					return ms;
				}
			}
			return MAX_MILLIS;
		}

		/** "NAME: n, p99 X ms; ..." for each request name, in order of the names. */
		String byRequest() {
			StringBuilder s = new StringBuilder();
			this.byRequest.forEach((request, times) -> s.append((s.length() > 0) ? "; " : "")
				.append(String.format("%s: %d, p99 %d ms", request, times.total, times.percentile(0.99))));
			return s.toString();
		}

		int max() {
			for (int ms = MAX_MILLIS; ms > 0; ms--) {
				if (this.counts[ms] > 0) {
					return ms;
				}
			}
			return 0;
		}

	}

}
