package dev.highload.profiles.admission;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a request waited for a request thread longer than it may, and whether the queue
 * in front of the threads stands. The controlled delay of Facebook's "Fail at Scale" on
 * Tomcat's queue, with a window in place of its "was the queue empty" test:
 * <ul>
 * <li>While the queue does not stand, a request may have waited three fifths of the
 * objective, the rest being for its answer and for the waits no clock of the service sees
 * (below): a burst (the requests that arrived during a collector's pause) is served, not
 * refused. Allowed four fifths, the answers' p99 as clients saw it past capacity on a
 * slower machine was 48-51 ms, at the objective (docs/reports/overload.md, "Three fifths
 * in bursts").</li>
 * <li>The queue stands once more than half the requests of a window of
 * {@value #WINDOW_MILLIS} ms waited longer than a tenth of the objective: more arrive
 * than the threads serve. A request may then have waited a fifth of the objective, and
 * the quick refusals drain the queue. It stands until a window in which no request waited
 * longer than that (or none came): under overload some always do, and a queue that
 * stopped standing whenever a window's waits were mostly short let reads wait the burst
 * allowance again in between, and their refusals reach the clients after 57 ms at
 * p99.</li>
 * </ul>
 * Why a window and not the last wait: with 16 threads some request finds a free thread
 * even under overload, so a queue judged on the last wait hardly ever stood, and only a
 * short allowance for every read kept overload within the objective; that refused reads
 * below capacity too (no step of bench/capacity.py held at b8f7b05; docs/reports/
 * overload.md, "Judged from arrival"). Why a fifth while it stands: past capacity the
 * cores are saturated, and a request also waits where no clock of the service sees it
 * (the kernel, Tomcat's poller, the client's own threads); allowed half the objective,
 * the answers' p99 as clients saw it was 58-64 ms.
 */
final class ThreadWaits {

	/** How often the queue is judged. */
	static final long WINDOW_MILLIS = 250;

	/** A window with fewer requests does not make a queue stand: too few to tell. */
	static final int WINDOW_MIN_REQUESTS = 20;

	private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS);

	private final long longWait;

	private final long burstAllowance;

	private final long standingAllowance;

	private final AtomicLong windowStart;

	private final LongAdder requests = new LongAdder();

	private final LongAdder longWaits = new LongAdder();

	private final LongAdder overAllowance = new LongAdder();

	private volatile boolean standing;

	/**
	 * @param objective the p99 the service promises
	 * @param now the clock's reading at start
	 */
	ThreadWaits(Duration objective, long now) {
		long nanos = objective.toNanos();
		this.longWait = nanos / 10;
		this.burstAllowance = nanos * 3 / 5;
		this.standingAllowance = nanos / 5;
		this.windowStart = new AtomicLong(now);
	}

	/**
	 * Counts one request's wait, and judges the queue once a window.
	 * @param waited how long the request waited for a thread, in nanoseconds
	 * @param now the clock's reading
	 * @return whether it waited longer than it may
	 */
	boolean tooLong(long waited, long now) {
		long start = this.windowStart.get();
		if (now - start >= WINDOW_NANOS && this.windowStart.compareAndSet(start, now)) {
			judge(this.requests.sumThenReset(), this.longWaits.sumThenReset(), this.overAllowance.sumThenReset());
			if (now - start >= 2 * WINDOW_NANOS) {
				// A whole window went by without a request: nothing queued.
				this.standing = false;
			}
		}
		this.requests.increment();
		if (waited > this.longWait) {
			this.longWaits.increment();
			if (waited > this.standingAllowance) {
				this.overAllowance.increment();
			}
		}
		return waited > (this.standing ? this.standingAllowance : this.burstAllowance);
	}

	/** Whether the queue stood at the last judgement. */
	boolean standing() {
		return this.standing;
	}

	private void judge(long inWindow, long longInWindow, long overAllowanceInWindow) {
		if (this.standing) {
			this.standing = overAllowanceInWindow > 0;
		}
		else {
			this.standing = inWindow >= WINDOW_MIN_REQUESTS && longInWindow * 2 > inWindow;
		}
	}

}
