package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The positions the service knows beyond each node's: the highest it has seen anywhere,
 * and the primary's over time ({@link PrimaryPositions}). They bound what a read may ask
 * for, and give a client its token after a write.
 */
final class KnownPositions {

	private static final Logger log = LoggerFactory.getLogger(KnownPositions.class);

	private final DataSource primary;

	private final PrimaryPositions primaryPositions;

	private final AtomicLong highest = new AtomicLong();

	/**
	 * @param primary the write pool, which always reaches the primary
	 * @param spacingMillis the least time between two fetches of the primary's position
	 */
	KnownPositions(DataSource primary, long spacingMillis) {
		this.primary = primary;
		this.primaryPositions = new PrimaryPositions(this::fetchPrimaryPosition, spacingMillis);
	}

	/**
	 * The position a read must see, no later than the primary's: a position beyond any
	 * seen here (from another instance, or forged) is checked against the primary's, and
	 * one beyond the primary's is taken as the primary's.
	 */
	WalPosition plausible(WalPosition atLeast) {
		if (atLeast.offset() <= this.highest.get()) {
			return atLeast;
		}
		try {
			WalPosition primaryNow = seen(this.primaryPositions.fresh(System.currentTimeMillis()));
			return (atLeast.offset() <= primaryNow.offset()) ? atLeast : primaryNow;
		}
		catch (RuntimeException ex) {
			log.debug("Could not read the primary's position; capping a token at the newest known", ex);
			return new WalPosition(this.highest.get());
		}
	}

	/**
	 * A position that bounds every write acknowledged before {@code millis} (a wall-clock
	 * instant), from the primary's samples; the newest position known if the primary
	 * cannot be asked.
	 */
	WalPosition acknowledgedBefore(long millis) {
		try {
			return seen(this.primaryPositions.boundingWritesBefore(millis));
		}
		catch (RuntimeException ex) {
			log.debug("Could not read the primary's position; taking the newest known", ex);
			return new WalPosition(this.highest.get());
		}
	}

	/**
	 * The primary's position sampled after now: what a client's token must carry after
	 * its write. Shared with concurrent writers.
	 * @throws RuntimeException if the primary did not answer
	 */
	WalPosition afterWrite() {
		return seen(this.primaryPositions.fresh(System.currentTimeMillis()));
	}

	/** A sample of the primary's position by the node monitor. */
	void primarySampled(long startedMillis, WalPosition position) {
		this.primaryPositions.record(startedMillis, position);
		seen(position);
	}

	/** A position some node had: raises the highest seen. */
	WalPosition seen(WalPosition position) {
		long offset = position.offset();
		long current = this.highest.get();
		while (offset > current && !this.highest.compareAndSet(current, offset)) {
			current = this.highest.get();
		}
		return position;
	}

	private WalPosition fetchPrimaryPosition() {
		NodePosition.Sample sample;
		try {
			sample = NodePosition.query(this.primary);
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not read the primary's position", ex);
		}
		if (sample.standby()) {
			throw new IllegalStateException("The write pool reached a replica");
		}
		return sample.position();
	}

}
