package dev.highload.profiles.gatling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.Predicate;

import io.gatling.javaapi.core.Session;

/**
 * Per-request-type latency and errors, recorded as the run goes, so that the end of the
 * run can print one summary next to the CPU figures. Gatling's own report has the same
 * numbers per request; this copy exists because Gatling writes its report after the
 * simulation's last hook has run.
 */
final class LatencyRecorder {

	/** Millisecond buckets up to a minute; anything slower counts in the last bucket. */
	private static final int BUCKETS = 60_001;

	private static final Map<String, Stats> stats = new ConcurrentHashMap<>();

	private LatencyRecorder() {
	}

	/**
	 * A session step that records the request just made: its status and response time
	 * were saved by the request's checks as {@code status} and {@code rt}.
	 */
	static Function<Session, Session> record(String request, int expectedStatus) {
		return record(request, expectedStatus, (session) -> true);
	}

	/**
	 * As {@link #record(String, int)}, for a request whose expected status is not the
	 * whole of success: it failed too if {@code succeeded} says so, as a check of its
	 * body failed it in Gatling's count.
	 */
	static Function<Session, Session> record(String request, int expectedStatus, Predicate<Session> succeeded) {
		Stats s = stats.computeIfAbsent(request, (name) -> new Stats());
		return (session) -> {
			Integer status = session.contains("status") ? session.getInt("status") : null;
			if (status == null || status != expectedStatus || !succeeded.test(session)) {
				s.failed.incrementAndGet();
			}
			else {
				int millis = session.getInt("rt");
				s.counts.incrementAndGet(Math.min(millis, BUCKETS - 1));
				s.sum.addAndGet(millis);
				s.ok.incrementAndGet();
				s.max.accumulateAndGet(millis, Math::max);
			}
			return session.remove("status").remove("rt");
		};
	}

	/** One row per request type. */
	static List<Row> rows() {
		List<Row> rows = new ArrayList<>();
		stats.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.forEach((e) -> rows.add(e.getValue().row(e.getKey())));
		return rows;
	}

	static String summary() {
		StringBuilder s = new StringBuilder(String.format("%-24s %10s %8s %8s %7s %7s %7s %7s %7s%n", "request",
				"requests", "failed", "failed%", "avg", "p50", "p95", "p99", "max"));
		for (Row r : rows()) {
			s.append(String.format("%-24s %10d %8d %8.3f %7.2f %7d %7d %7d %7d%n", r.request(), r.requests(),
					r.failed(), r.failedPercent(), r.avgMillis(), r.p50(), r.p95(), r.p99(), r.max()));
		}
		return s.append("(latencies in ms, successful requests only)").toString();
	}

	static String csv() {
		StringBuilder s = new StringBuilder(
				"request,requests,failed,failed_percent,avg_ms,p50_ms,p95_ms,p99_ms,max_ms\n");
		for (Row r : rows()) {
			s.append(String.format("%s,%d,%d,%.3f,%.2f,%d,%d,%d,%d%n", r.request(), r.requests(), r.failed(),
					r.failedPercent(), r.avgMillis(), r.p50(), r.p95(), r.p99(), r.max()));
		}
		return s.toString();
	}

	/**
	 * Figures of one request type.
	 *
	 * @param request the request's name
	 * @param requests all requests made
	 * @param failed requests without the expected status (including connection errors)
	 * @param failedPercent failed as a percentage of all
	 * @param avgMillis mean response time of the successful ones
	 * @param p50 median, ms
	 * @param p95 95th percentile, ms
	 * @param p99 99th percentile, ms
	 * @param max slowest, ms
	 */
	record Row(String request, long requests, long failed, double failedPercent, double avgMillis, long p50, long p95,
			long p99, long max) {

	}

	private static final class Stats {

		final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

		final AtomicLong ok = new AtomicLong();

		final AtomicLong failed = new AtomicLong();

		final AtomicLong sum = new AtomicLong();

		final AtomicLong max = new AtomicLong();

		Row row(String name) {
			long ok = this.ok.get();
			long failed = this.failed.get();
			long all = ok + failed;
			return new Row(name, all, failed, (all > 0) ? 100.0 * failed / all : 0,
					(ok > 0) ? (double) this.sum.get() / ok : 0, percentile(50, ok), percentile(95, ok),
					percentile(99, ok), this.max.get());
		}

		/**
		 * The smallest latency that at least {@code p} % of the successful requests did
		 * not exceed.
		 */
		private long percentile(double p, long ok) {
			if (ok == 0) {
				return 0;
			}
			long rank = (long) Math.ceil(p / 100 * ok);
			long seen = 0;
			for (int ms = 0; ms < BUCKETS; ms++) {
				seen += this.counts.get(ms);
				if (seen >= rank) {
					return ms;
				}
			}
			return BUCKETS - 1;
		}

	}

}
