package dev.highload.profiles.routing;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Which node serves a read.
 * <ul>
 * <li>A read that needs no position goes to any replica that answers, at random.</li>
 * <li>A read that needs a position goes to a replica known to have replayed it. If none
 * is known to, the replicas are asked for their positions, again and again for up to
 * {@code app.db.read-your-writes-wait}; then the read goes to the primary, which has
 * every acknowledged write, through the primary's read pool
 * ({@link Nodes#primaryForReads(Node)}).</li>
 * <li>No replica answers: any node that does, the primary's write pool last.</li>
 * </ul>
 */
final class NodeChoice {

	private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

	private static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	private final Nodes nodes;

	private final long maxWaitNanos;

	private final Counter waited;

	private final Counter onPrimary;

	NodeChoice(Nodes nodes, long maxWaitNanos, MeterRegistry meterRegistry) {
		this.nodes = nodes;
		this.maxWaitNanos = maxWaitNanos;
		this.waited = Counter.builder("profiles.reads.waited")
			.description("Reads that asked the replicas for their positions: none was known to have "
					+ "replayed the position the read needs")
			.register(meterRegistry);
		this.onPrimary = Counter.builder("profiles.reads.primary")
			.description("Reads served by the primary: no replica had replayed their position within "
					+ "app.db.read-your-writes-wait, or no replica answered")
			.register(meterRegistry);
	}

	/**
	 * @param required the position the read must see; {@link WalPosition#NONE} for any
	 * @param excluded a node not to choose (one whose connection just broke), or null
	 * @return the node
	 */
	Node choose(WalPosition required, Node excluded) {
		if (this.nodes.readable().length == 0) {
			return this.nodes.primary();
		}
		Node replica = pick(required, excluded, true);
		if (replica != null) {
			return replica;
		}
		if (required.offset() > 0) {
			return awaitReplica(required, excluded);
		}
		Node any = pick(required, excluded, false);
		if (any == null) {
			this.onPrimary.increment();
			return this.nodes.primary();
		}
		if (!any.standby()) {
			this.onPrimary.increment();
		}
		return any;
	}

	/**
	 * An available node past {@code required}, a replica if {@code standby}: one with an
	 * idle connection if there is one, each such node equally likely. Waiting in one
	 * node's pool while another's has a connection free would cost a thread hand-off (a
	 * wake-up) per read.
	 */
	private Node pick(WalPosition required, Node excluded, boolean standby) {
		Node chosen = null;
		int eligible = 0;
		boolean idle = false;
		for (Node node : this.nodes.readable()) {
			if (node != excluded && (!standby || node.standby()) && node.available() && node.covers(required)) {
				boolean nodeIdle = node.idle();
				if (nodeIdle && !idle) {
					// The first node with a free connection: those without lose.
					idle = true;
					eligible = 0;
				}
				if (nodeIdle == idle) {
					eligible++;
					if (eligible == 1 || ThreadLocalRandom.current().nextInt(eligible) == 0) {
						chosen = node;
					}
				}
			}
		}
		return chosen;
	}

	/**
	 * Asks the replicas for their positions until one has replayed {@code required} or
	 * the wait is over; the primary then.
	 */
	private Node awaitReplica(WalPosition required, Node excluded) {
		this.waited.increment();
		long deadline = System.nanoTime() + this.maxWaitNanos;
		long pause = FIRST_PAUSE_NANOS;
		while (true) {
			for (Node node : this.nodes.readable()) {
				if (node != excluded && node.standby() && node.available() && this.nodes.probe(node)
						&& node.covers(required)) {
					return node;
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				this.onPrimary.increment();
				return this.nodes.primaryForReads(excluded);
			}
			LockSupport.parkNanos(Math.min(pause, left));
			pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
		}
	}

}
