package dev.highload.profiles.routing;

/**
 * The routed read running on this thread: the node the router chose, whose pool the
 * routing DataSource hands out while it runs, and the highest position its statements
 * reported ({@link NodePosition#report}). Reads do not nest.
 */
final class RoutedRead {

	private static final ThreadLocal<RoutedRead> CURRENT = new ThreadLocal<>();

	final Node node;

	private long seen = -1;

	private boolean standby;

	private RoutedRead(Node node) {
		this.node = node;
	}

	/** Starts a read on {@code node}; {@link #end()} must follow, in a finally. */
	static RoutedRead begin(Node node) {
		if (CURRENT.get() != null) {
			throw new IllegalStateException("A routed read is already running on this thread; reads do not nest");
		}
		RoutedRead read = new RoutedRead(node);
		CURRENT.set(read);
		return read;
	}

	/** The node of the read running on this thread; {@code null} outside one. */
	static Node currentNode() {
		RoutedRead read = CURRENT.get();
		return (read != null) ? read.node : null;
	}

	static void report(long position, boolean standby) {
		RoutedRead read = CURRENT.get();
		if (read != null && position > read.seen) {
			read.seen = position;
			read.standby = standby;
		}
	}

	/** Whether a statement of the read reported the node's position. */
	boolean reported() {
		return this.seen >= 0;
	}

	WalPosition seen() {
		return new WalPosition(this.seen);
	}

	boolean standby() {
		return this.standby;
	}

	void end() {
		// Not remove(): that rehashes the rest of the thread's map on every read, and a
		// pooled thread runs the next read soon.
		CURRENT.set(null);
	}

}
