package dev.highload.profiles.routing;

import java.util.concurrent.atomic.AtomicLong;

import org.postgresql.core.BaseConnection;

/**
 * The routed read running on this thread: the node the router chose, whose pool the
 * routing DataSource hands out while it runs, and the highest position its statements
 * reported ({@link NodePosition#report}). Reads do not nest.
 */
final class RoutedRead {

	private static final ThreadLocal<RoutedRead> CURRENT = new ThreadLocal<>();

	final Node node;

	private final long required;

	private long seen = -1;

	private boolean standby;

	private BaseConnection connection;

	private AtomicLong connectionKnown;

	private long covered = -1;

	private boolean checked;

	private RoutedRead(Node node, long required) {
		this.node = node;
		this.required = required;
	}

	/**
	 * Starts a read on {@code node} that must see {@code required}; {@link #end()} must
	 * follow, in a finally.
	 */
	static RoutedRead begin(Node node, WalPosition required) {
		if (CURRENT.get() != null) {
			throw new IllegalStateException("A routed read is already running on this thread; reads do not nest");
		}
		RoutedRead read = new RoutedRead(node, required.offset());
		CURRENT.set(read);
		return read;
	}

	/** The read running on this thread; {@code null} outside one. */
	static RoutedRead current() {
		return CURRENT.get();
	}

	long required() {
		return this.required;
	}

	/**
	 * On a balanced endpoint ({@link BalancedConnections}): the connection the read got,
	 * the furthest position known of it, and a position that connection's replica had
	 * replayed before the read began.
	 */
	void connection(BaseConnection connection, AtomicLong known, long covered) {
		this.connection = connection;
		this.connectionKnown = known;
		this.covered = covered;
	}

	/** The balanced endpoint's connection the read ran on; {@code null} if none. */
	BaseConnection connection() {
		return this.connection;
	}

	/** What the read saw on its connection: no later read there sees less. */
	void connectionSaw(long position) {
		this.connectionKnown.accumulateAndGet(position, Math::max);
	}

	/** What {@link #connection} was told the read covers. */
	WalPosition connectionCovered() {
		return new WalPosition(Math.max(this.covered, 0));
	}

	/** The connection's position had to be asked before the read. */
	void checked() {
		this.checked = true;
	}

	boolean wasChecked() {
		return this.checked;
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
