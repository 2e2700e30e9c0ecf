package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.highload.profiles.database.DatabaseFailures;
import dev.highload.profiles.database.NodePools;

import org.springframework.context.SmartLifecycle;

/**
 * The nodes reads may go to, and their monitor: a probe of every node about once a second
 * ({@code app.db.node-check-interval}), which brings a node that was down back into
 * reading and samples the primary's position. Between probes the routing learns where
 * each node is from the reads themselves.
 * <p>
 * The monitor runs from the application context's start to its stop, in a phase before
 * the web server's: it probes before the first request and until the last one is done.
 */
final class Nodes implements SmartLifecycle {

	/** The name, and routing key, of the primary's node: the write pool. */
	static final String PRIMARY = "primary";

	private final Node[] readable;

	private final Map<String, Node> byHost;

	private final Node primary;

	private final KnownPositions positions;

	private final long periodMillis;

	private volatile ScheduledExecutorService monitor;

	/**
	 * @param pools a read pool per node
	 * @param standbys the addresses taken for replicas until a probe says otherwise
	 * @param balanced whether those addresses are balanced endpoints, each reaching
	 * several replicas ({@code app.db.routing=balanced})
	 * @param writePool the write pool, which always reaches the primary
	 * @param positions told of the primary's positions
	 * @param periodMillis the time between two probes of a node
	 */
	Nodes(NodePools pools, List<String> standbys, boolean balanced, HikariDataSource writePool,
			KnownPositions positions, long periodMillis) {
		List<Node> nodes = new ArrayList<>();
		Map<String, Node> byHost = new LinkedHashMap<>();
		pools.byHost().forEach((host, pool) -> {
			boolean standby = standbys.contains(host);
			Node node = new Node(pool.getPoolName(), pool, standby, balanced && standby);
			nodes.add(node);
			byHost.put(host, node);
		});
		this.readable = nodes.toArray(Node[]::new);
		this.byHost = Collections.unmodifiableMap(byHost);
		this.primary = new Node(PRIMARY, writePool, false);
		this.positions = positions;
		this.periodMillis = periodMillis;
	}

	/**
	 * The nodes with a read pool, in configuration order; none if reads stay on the
	 * primary.
	 */
	Node[] readable() {
		return this.readable;
	}

	/** The nodes with a read pool by their {@code host:port}, in configuration order. */
	Map<String, Node> byHost() {
		return this.byHost;
	}

	/**
	 * The primary through the write pool: it always reaches whichever node is primary.
	 */
	Node primary() {
		return this.primary;
	}

	/**
	 * The primary for a read that must go there: through its own read pool while that
	 * answers, so that reads pushed onto the primary (no replica had replayed what they
	 * need in time) queue for its few read connections and never take the write pool's
	 * from registrations and logins; through the write pool only when no read pool of the
	 * primary answers.
	 * @param excluded a node not to choose (one whose connection just broke), or null
	 */
	Node primaryForReads(Node excluded) {
		for (Node node : this.readable) {
			if (node != excluded && !node.standby() && node.available()) {
				return node;
			}
		}
		return this.primary;
	}

	/** Every node's pool by its name: the routing DataSource's targets. */
	Map<Object, Object> pools() {
		Map<Object, Object> pools = new HashMap<>();
		for (Node node : this.readable) {
			pools.put(node.name, node.readTarget());
		}
		pools.put(this.primary.name, this.primary.pool);
		return pools;
	}

	/**
	 * Reads a node's position and role; false if it did not answer, and the node down if
	 * that was because its connection broke or could not be made
	 * ({@link DatabaseFailures#isBrokenConnection}). A pool that had no connection free
	 * in time, or a statement that was cancelled, says the node is busy, not that it is
	 * gone: taking it out of reading would push its reads onto the others and the primary
	 * just when they are busiest.
	 */
	boolean probe(Node node) {
		try {
			NodePosition.Sample sample = NodePosition.query(node.pool);
			node.probed(sample.position(), sample.standby());
			this.positions.seen(sample.position());
			return true;
		}
		catch (SQLException | RuntimeException ex) {
			if (DatabaseFailures.isBrokenConnection(ex)) {
				node.down(ex);
			}
			return false;
		}
	}

	/** The monitor's check of one node. */
	private void check(Node node) {
		long started = System.currentTimeMillis();
		if (probe(node) && !node.standby()) {
			this.positions.primarySampled(started, node.known());
		}
	}

	@Override
	public void start() {
		ScheduledExecutorService executor = Executors.newScheduledThreadPool(Math.max(1, this.readable.length),
				(task) -> {
					Thread thread = new Thread(task, "node-monitor");
					thread.setDaemon(true);
					return thread;
				});
		for (Node node : this.readable) {
			executor.scheduleWithFixedDelay(() -> check(node), 0, this.periodMillis, TimeUnit.MILLISECONDS);
		}
		this.monitor = executor;
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.monitor;
		if (executor != null) {
			executor.shutdownNow();
			this.monitor = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.monitor != null;
	}

	/**
	 * Before the web server's start and after its stop (Spring Boot's phases are above).
	 */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE - 4096;
	}

}
