package dev.highload.profiles.routing;

import java.util.function.Supplier;

/**
 * The primary's WAL position over time: a sample about every second from the node
 * monitor, kept for an hour, and a fresh one on demand.
 * <p>
 * A sample taken at time {@code t} bounds every write acknowledged before {@code t}: an
 * acknowledged commit is in the primary's WAL, below its insert position. That is what
 * lets a replica's miss be final without asking the primary: a registration whose id was
 * made at {@code m} was acknowledged by {@code m} plus the write timeout or not at all,
 * and a replica past the first sample after that shows it if it exists.
 * <p>
 * Fresh positions are fetched one at a time, at most one fetch per {@code spacing}: a
 * caller that needs a position sampled after some instant waits for the next fetch rather
 * than starting its own, so however many requests need one, the primary answers a bounded
 * number of these queries.
 */
final class PrimaryPositions {

	/** One hour of samples at one a second. */
	static final int CAPACITY = 3600;

	private final Supplier<WalPosition> fetch;

	private final long spacingMillis;

	private final long[] times = new long[CAPACITY];

	private final long[] positions = new long[CAPACITY];

	/** Samples held; they are the last {@code size} written, oldest at {@code start}. */
	private int size;

	private int start;

	private final Object fetching = new Object();

	private volatile long latestTime = Long.MIN_VALUE;

	private volatile WalPosition latest = WalPosition.NONE;

	private long lastFetchMillis;

	/**
	 * @param fetch asks the primary for its position now; throws if it cannot
	 * @param spacingMillis the least time between two fetches
	 */
	PrimaryPositions(Supplier<WalPosition> fetch, long spacingMillis) {
		this.fetch = fetch;
		this.spacingMillis = spacingMillis;
	}

	/**
	 * Records a sample. Samples out of time order (a clock stepped back) are dropped.
	 * @param startedMillis when the query that read it was sent
	 * @param position the primary's position it read
	 */
	synchronized void record(long startedMillis, WalPosition position) {
		if (this.size > 0 && startedMillis < this.times[index(this.size - 1)]) {
			return;
		}
		if (this.size < CAPACITY) {
			this.size++;
		}
		else {
			this.start = (this.start + 1) % CAPACITY;
		}
		int at = index(this.size - 1);
		this.times[at] = startedMillis;
		this.positions[at] = position.offset();
		if (startedMillis >= this.latestTime) {
			this.latest = position;
			this.latestTime = startedMillis;
		}
	}

	/**
	 * A position that bounds every write acknowledged before {@code millis}: the first
	 * sample taken at or after it, or, when none was, a fresh one.
	 * @param millis a wall-clock instant
	 * @return the position
	 * @throws RuntimeException if a fresh position was needed and the primary did not
	 * answer
	 */
	WalPosition boundingWritesBefore(long millis) {
		synchronized (this) {
			if (this.size > 0 && this.times[index(this.size - 1)] >= millis) {
				return new WalPosition(this.positions[index(firstAtOrAfter(millis))]);
			}
		}
		return fresh(millis);
	}

	/**
	 * The primary's position as sampled at or after {@code millis}; fetched if no sample
	 * is that recent, with at most one fetch in flight and one per spacing.
	 */
	WalPosition fresh(long millis) {
		if (this.latestTime >= millis) {
			return this.latest;
		}
		synchronized (this.fetching) {
			if (this.latestTime >= millis) {
				return this.latest;
			}
			long wait = this.lastFetchMillis + this.spacingMillis - System.currentTimeMillis();
			if (wait > 0) {
				try {
					Thread.sleep(wait);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for the primary's position", ex);
				}
			}
			long started = System.currentTimeMillis();
			this.lastFetchMillis = started;
			WalPosition position = this.fetch.get();
			record(started, position);
			return position;
		}
	}

	/** Index in the arrays of the {@code i}-th oldest sample. */
	private int index(int i) {
		return (this.start + i) % CAPACITY;
	}

	/** The oldest sample's rank among those at or after {@code millis}; one exists. */
	private int firstAtOrAfter(long millis) {
		int low = 0;
		int high = this.size - 1;
		while (low < high) {
			int mid = (low + high) >>> 1;
			if (this.times[index(mid)] >= millis) {
				high = mid;
			}
			else {
				low = mid + 1;
			}
		}
		return low;
	}

}
