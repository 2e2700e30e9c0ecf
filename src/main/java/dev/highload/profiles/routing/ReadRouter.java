package dev.highload.profiles.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Where every read runs: the one class that decides which node serves it.
 * <p>
 * Each node has a read pool of its own, and the router knows of each node its role and a
 * WAL position it has certainly replayed ({@code known}). It learns both for free from
 * the reads themselves, whose statements select the node's position and role with their
 * result ({@link #POSITION}), and from a probe of every node about once a second; so no
 * read pays a query of its own for them.
 * <ul>
 * <li>A read that needs no position goes to any replica that answers, at random.</li>
 * <li>A read that needs a position (a client's consistency token, or the id rule of the
 * user service) goes to a replica known to have replayed it. If none is known to, the
 * replicas are asked for their positions, again and again for up to
 * {@code app.db.read-your-writes-wait}; then the read goes to the primary, which has
 * every acknowledged write.</li>
 * <li>A read whose connection broke is repeated once on another node, and the node gets
 * no reads until its probe answers again.</li>
 * </ul>
 * A position beyond any the router has seen (from another service instance, or forged) is
 * checked against the primary's, which a fetch shared by every caller keeps to a bounded
 * number of queries ({@link PrimaryPositions}); a position beyond the primary's is taken
 * as the primary's.
 * <h2>Everything else that decides where a statement goes</h2> This is the only place
 * that explains it; the other classes only do their part.
 * <ul>
 * <li>Every read of a request (a profile, a search, the password hash of a login, the
 * position after a write) calls {@link #read} or {@link #afterWrite}, through the user
 * service. Reads are single statements on auto-commit connections: no transaction, so no
 * transaction setting affects them.</li>
 * <li>A write, and whatever its transaction reads (a registration looks its key up under
 * an advisory lock), runs in an {@code @Transactional} service method on the
 * application's DataSource ({@link DataSourceConfiguration}): a
 * {@code LazyConnectionDataSourceProxy}, which takes no connection before the
 * transaction's first statement, over {@link SynchronousCommitCheck}, over the write
 * pool, whose URL lists every node with {@code targetServerType=primary}. It always
 * reaches the primary, and finds a promoted one by itself.</li>
 * <li>{@code @Transactional(readOnly = true)} routes nothing: no DataSource here keys on
 * the flag. On a service class it only makes a method that forgot its own
 * {@code @Transactional} run in a read-only transaction, so it cannot write by
 * accident.</li>
 * <li>{@link ReadOnlyNodeEviction} keeps the write pool on the primary after a demotion:
 * a connection that met a read-only node (25006) is evicted, and the next one finds the
 * new primary.</li>
 * <li>With {@code app.db.read-from-replicas=false} the router has no read pools, and
 * every read runs on the write pool: the primary.</li>
 * <li>{@link SchemaOwnerConnections} serves Flyway and the seeder, on the primary as the
 * schema's owner; no request reads through it. The replication metrics read the primary's
 * {@code pg_stat_replication} through the write pool.</li>
 * </ul>
 */
public final class ReadRouter implements AutoCloseable {

	/**
	 * The columns every routed read selects first: the node's position and whether it is
	 * a replica. On a replica the position is what it has replayed; on the primary what
	 * it has flushed, which every synchronous commit is below before anyone sees it, and
	 * which a replica can reach (WAL inserted but not flushed is not sent yet). Evaluated
	 * while the statement runs, after its snapshot was taken, so the snapshot holds
	 * nothing after the position. (A transaction committed with
	 * {@code synchronous_commit = off}, which the service never does, is visible on the
	 * primary before it is flushed.)
	 */
	public static final String POSITION = """
			SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
			             ELSE pg_current_wal_flush_lsn() END - '0/0')::bigint AS position,
			       pg_is_in_recovery() AS standby""";

	private static final Logger log = LoggerFactory.getLogger(ReadRouter.class);

	private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(8);

	private static final long FIRST_PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	private final Node[] nodes;

	private final Node primary;

	private final PrimaryPositions primaryPositions;

	private final long maxWaitNanos;

	private final AtomicLong highest = new AtomicLong();

	private final ScheduledExecutorService monitor;

	private final Counter retried;

	private final Counter waited;

	private final Counter onPrimary;

	/**
	 * @param nodePools a read pool per node, in configuration order
	 * @param standbys the addresses taken for replicas until a probe says otherwise
	 * @param writePool the write pool, which always reaches the primary
	 * @param properties the timings
	 * @param meterRegistry for the counters
	 */
	ReadRouter(List<HikariDataSource> nodePools, List<String> standbys, HikariDataSource writePool,
			DatabaseProperties properties, MeterRegistry meterRegistry) {
		List<Node> list = new ArrayList<>();
		for (HikariDataSource pool : nodePools) {
			list.add(new Node(pool.getPoolName(), pool, standbys.contains(address(pool))));
		}
		this.nodes = list.toArray(Node[]::new);
		this.primary = new Node("primary", writePool, false);
		this.primaryPositions = new PrimaryPositions(this::fetchPrimaryPosition,
				properties.primaryPositionSpacing().toMillis());
		this.maxWaitNanos = properties.readYourWritesWait().toNanos();
		this.retried = Counter.builder("profiles.reads.retried")
			.description("Reads repeated on another node after their connection broke")
			.register(meterRegistry);
		this.waited = Counter.builder("profiles.reads.waited")
			.description("Reads that asked the replicas for their positions: none was known to have "
					+ "replayed the position the read needs")
			.register(meterRegistry);
		this.onPrimary = Counter.builder("profiles.reads.primary")
			.description("Reads served by the primary: no replica had replayed their position within "
					+ "app.db.read-your-writes-wait, or no replica answered")
			.register(meterRegistry);
		this.monitor = Executors.newScheduledThreadPool(Math.max(1, this.nodes.length), (task) -> {
			Thread thread = new Thread(task, "node-monitor");
			thread.setDaemon(true);
			return thread;
		});
		long period = properties.nodeCheckInterval().toMillis();
		for (Node node : this.nodes) {
			this.monitor.scheduleWithFixedDelay(() -> check(node), 0, period, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Runs a read on a node that has replayed {@code atLeast}.
	 * @param atLeast the position the read must see; {@link WalPosition#NONE} for any
	 * @param query the statement
	 * @param <T> the result type
	 * @return the result with the positions that bound its snapshot
	 */
	public <T> Positioned<T> read(WalPosition atLeast, NodeQuery<T> query) {
		WalPosition required = plausible(atLeast);
		Node node = choose(required, null);
		try {
			return runOn(node, required, query);
		}
		catch (DataAccessResourceFailureException ex) {
			if (!DatabaseFailures.isBrokenConnection(ex) && !(ex.getCause() instanceof NodeWentBack)) {
				throw ex;
			}
			this.retried.increment();
			node.down(ex);
			return runOn(choose(required, node), required, query);
		}
	}

	/**
	 * A position that bounds every write acknowledged before {@code millis} (a wall-clock
	 * instant), from the primary's samples; the newest position known if the primary
	 * cannot be asked.
	 */
	public WalPosition acknowledgedBefore(long millis) {
		try {
			return raise(this.primaryPositions.boundingWritesBefore(millis));
		}
		catch (RuntimeException ex) {
			log.debug("Could not read the primary's position; taking the newest known", ex);
			return new WalPosition(this.highest.get());
		}
	}

	/**
	 * The position a client's token after a write must carry: the primary's, sampled
	 * after the write was acknowledged. Shared with concurrent writers.
	 * @return the position
	 * @throws RuntimeException if the primary did not answer
	 */
	public WalPosition afterWrite() {
		return raise(this.primaryPositions.fresh(System.currentTimeMillis()));
	}

	private <T> Positioned<T> runOn(Node node, WalPosition required, NodeQuery<T> query) {
		WalPosition covered = (node == this.primary) ? required : node.known().max(required);
		Observed<T> observed = query.run(node.jdbc);
		if (node != this.primary && observed.seen().compareTo(covered) < 0) {
			// A replica behind a position it had reached: rebuilt or rewound. What it
			// answered may miss what it showed before.
			node.reset(observed.seen());
			throw new DataAccessResourceFailureException(node.name + " went back",
					new NodeWentBack(node.name + " is at " + observed.seen() + ", below " + covered));
		}
		node.observed(observed.seen(), observed.standby());
		raise(observed.seen());
		return new Positioned<>(observed.value(), covered, observed.seen(), observed.standby());
	}

	private Node choose(WalPosition required, Node excluded) {
		if (this.nodes.length == 0) {
			return this.primary;
		}
		Node replica = pick(required, excluded, true);
		if (replica != null) {
			return replica;
		}
		if (required.offset() > 0) {
			return awaitReplica(required, excluded);
		}
		// No replica answers: any node that does, the primary's pool last.
		Node any = pick(required, excluded, false);
		if (any == null) {
			this.onPrimary.increment();
			return this.primary;
		}
		if (!any.standby) {
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
		for (Node node : this.nodes) {
			if (node != excluded && (!standby || node.standby) && node.available()
					&& node.known.get() >= required.offset()) {
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
			for (Node node : this.nodes) {
				if (node != excluded && node.standby && node.available() && probe(node)
						&& node.known.get() >= required.offset()) {
					return node;
				}
			}
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				this.onPrimary.increment();
				return this.primary;
			}
			LockSupport.parkNanos(Math.min(pause, left));
			pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
		}
	}

	/** The requirement, no later than the primary's position. */
	private WalPosition plausible(WalPosition atLeast) {
		if (atLeast.offset() <= this.highest.get()) {
			return atLeast;
		}
		try {
			WalPosition primaryNow = raise(this.primaryPositions.fresh(System.currentTimeMillis()));
			return (atLeast.offset() <= primaryNow.offset()) ? atLeast : primaryNow;
		}
		catch (RuntimeException ex) {
			log.debug("Could not read the primary's position; capping a token at the newest known", ex);
			return new WalPosition(this.highest.get());
		}
	}

	private WalPosition raise(WalPosition position) {
		long offset = position.offset();
		long current = this.highest.get();
		while (offset > current && !this.highest.compareAndSet(current, offset)) {
			current = this.highest.get();
		}
		return position;
	}

	/** The monitor's check of one node, about once a second. */
	private void check(Node node) {
		long started = System.currentTimeMillis();
		if (probe(node) && !node.standby) {
			this.primaryPositions.record(started, node.known());
		}
	}

	/**
	 * Reads a node's position and role; false, and the node down, if it did not answer.
	 */
	private boolean probe(Node node) {
		try {
			Observed<Void> observed = node.jdbc.sql(POSITION)
				.query((rs) -> rs.next() ? new Observed<Void>(null, new WalPosition(rs.getLong(1)), rs.getBoolean(2))
						: null);
			if (observed == null) {
				return false;
			}
			node.probed(observed.seen(), observed.standby());
			raise(observed.seen());
			return true;
		}
		catch (DataAccessException | IllegalArgumentException ex) {
			node.down(ex);
			return false;
		}
	}

	private WalPosition fetchPrimaryPosition() {
		return this.primary.jdbc.sql(POSITION).query((rs) -> {
			rs.next();
			if (rs.getBoolean(2)) {
				throw new IllegalStateException("The write pool reached a replica");
			}
			return new WalPosition(rs.getLong(1));
		});
	}

	/** The nodes' read pools, for tests and the health of the pools. */
	List<HikariDataSource> pools() {
		List<HikariDataSource> pools = new ArrayList<>();
		for (Node node : this.nodes) {
			pools.add(node.pool);
		}
		return pools;
	}

	@Override
	public void close() {
		this.monitor.shutdownNow();
		for (Node node : this.nodes) {
			node.pool.close();
		}
	}

	private static String address(HikariDataSource pool) {
		String url = pool.getJdbcUrl();
		int hosts = url.indexOf("//") + 2;
		return url.substring(hosts, url.indexOf('/', hosts));
	}

	/** One node: its pool, and what the router knows of it. */
	private static final class Node {

		private final String name;

		private final HikariDataSource pool;

		private final JdbcClient jdbc;

		private final AtomicLong known = new AtomicLong();

		private volatile boolean standby;

		private volatile boolean healthy = true;

		Node(String name, HikariDataSource pool, boolean standby) {
			this.name = name;
			this.pool = pool;
			this.jdbc = JdbcClient.create(pool);
			this.standby = standby;
		}

		WalPosition known() {
			return new WalPosition(this.known.get());
		}

		/** Healthy and holding connections: a read on it need not wait for a connect. */
		boolean available() {
			if (!this.healthy) {
				return false;
			}
			HikariPoolMXBean pool = this.pool.getHikariPoolMXBean();
			return pool != null && pool.getTotalConnections() > 0;
		}

		/** Whether the pool has a connection nobody is using. */
		boolean idle() {
			HikariPoolMXBean pool = this.pool.getHikariPoolMXBean();
			return pool != null && pool.getIdleConnections() > 0;
		}

		/** A read's observation: positions only move forward here. */
		void observed(WalPosition seen, boolean standby) {
			long offset = seen.offset();
			long current = this.known.get();
			while (offset > current && !this.known.compareAndSet(current, offset)) {
				current = this.known.get();
			}
			this.standby = standby;
		}

		/** A probe's observation: also the first sign of life of a node that was down. */
		void probed(WalPosition seen, boolean standby) {
			observed(seen, standby);
			if (!this.healthy) {
				log.info("Node {} answers again ({}), reads may go to it", this.name, standby ? "replica" : "primary");
				this.healthy = true;
			}
		}

		void reset(WalPosition seen) {
			log.warn("Node {} is at {}, behind a position it had reached; forgetting what it had", this.name, seen);
			this.known.set(seen.offset());
		}

		void down(Exception cause) {
			if (this.healthy) {
				log.warn("Node {} taken out of reading until it answers again: {}", this.name, cause.toString());
				this.healthy = false;
			}
		}

	}

	/** A replica answered from behind a position it had already reached. */
	private static final class NodeWentBack extends RuntimeException {

		NodeWentBack(String message) {
			super(message, null, false, false);
		}

	}

}
