package dev.highload.profiles.admission;

import com.netflix.concurrency.limits.limit.AbstractLimit;

/**
 * The limit's algorithm: additive increase, multiplicative decrease on one threshold, as
 * the library's {@code AIMDLimit}, but it grows back whenever the threshold holds, not
 * only while the running requests fill half of it, and it starts at its maximum. Fed once
 * per window with the window's p99 read time ({@code WindowedLimit} with a percentile
 * window): past the threshold, or with a read answered 503 in the window, it falls by a
 * tenth, down to its minimum; within it, it grows by one, up to its maximum.
 * <p>
 * Why not {@code AIMDLimit} itself: its growth needs the running requests to fill half
 * the limit, so on a machine that serves its load with a few requests at once it settled
 * at twice the usual running count (16-43 at 5,500-6,500 requests a second), and the
 * requests that arrived during a collection's pause or the load generator's start filled
 * it and were refused (docs/reports/overload.md). A limit kept at its maximum while the
 * objective holds refuses only when the objective is threatened.
 */
final class ObjectiveLimit extends AbstractLimit {

	private static final double BACKOFF = 0.9;

	private final long thresholdNanos;

	private final int minLimit;

	private final int maxLimit;

	/**
	 * @param thresholdNanos the window's p99 read time past which the limit falls
	 * @param minLimit the lowest it falls to
	 * @param maxLimit where it starts, and the highest it grows to
	 */
	ObjectiveLimit(long thresholdNanos, int minLimit, int maxLimit) {
		super(maxLimit);
		this.thresholdNanos = thresholdNanos;
		this.minLimit = minLimit;
		this.maxLimit = maxLimit;
	}

	@Override
	protected int _update(long startTime, long rtt, int inflight, boolean didDrop) {
		int limit = getLimit();
		int next = (didDrop || rtt > this.thresholdNanos) ? (int) (limit * BACKOFF) : limit + 1;
		return Math.min(this.maxLimit, Math.max(this.minLimit, next));
	}

}
