package dev.highload.profiles.routing;

/**
 * A position in PostgreSQL's write-ahead log, as a byte offset ({@code pg_lsn - '0/0'}).
 * A node that has replayed up to a position shows every transaction committed before it.
 * Clients carry it as an opaque consistency token
 * ({@code consistency.ConsistencyTokens}).
 *
 * @param offset the byte offset; 0 is "no position", which every node satisfies
 */
public record WalPosition(long offset) implements Comparable<WalPosition> {

	/** No requirement: any node will do. */
	public static final WalPosition NONE = new WalPosition(0);

	public WalPosition {
		if (offset < 0) {
			throw new IllegalArgumentException("A WAL position is not negative: " + offset);
		}
	}

	/** Whether a node at this position shows everything up to {@code other}. */
	public boolean covers(WalPosition other) {
		return this.offset >= other.offset;
	}

	/** The later of the two. */
	public WalPosition max(WalPosition other) {
		return (other.offset > this.offset) ? other : this;
	}

	@Override
	public int compareTo(WalPosition other) {
		return Long.compare(this.offset, other.offset);
	}

	/** PostgreSQL's own notation, {@code X/Y}, for logs and messages. */
	@Override
	public String toString() {
		return Long.toHexString(this.offset >>> 32).toUpperCase() + "/"
				+ Long.toHexString(this.offset & 0xFFFF_FFFFL).toUpperCase();
	}

}
