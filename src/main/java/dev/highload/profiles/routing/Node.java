package dev.highload.profiles.routing;

import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node as the routing knows it: its pool, its role, a WAL position it has certainly
 * replayed ({@code known}), and whether it answers. Its name is the routing DataSource's
 * key for its pool.
 */
final class Node {

	private static final Logger log = LoggerFactory.getLogger(Node.class);

	final String name;

	final HikariDataSource pool;

	/**
	 * A balanced replica endpoint's connections ({@code app.db.routing=balanced}),
	 * through which reads take this node's pool; {@code null} for one node.
	 */
	final BalancedConnections balanced;

	private final AtomicLong known = new AtomicLong();

	private volatile boolean standby;

	private volatile boolean healthy = true;

	Node(String name, HikariDataSource pool, boolean standby) {
		this(name, pool, standby, false);
	}

	/**
	 * @param balanced whether the address is an endpoint that balances its connections
	 * over several replicas: its {@code known} position is then the furthest any of them
	 * showed, a hint for choosing it, and what holds for one read is decided per
	 * connection ({@link BalancedConnections})
	 */
	Node(String name, HikariDataSource pool, boolean standby, boolean balanced) {
		this.name = name;
		this.pool = pool;
		this.standby = standby;
		this.balanced = balanced ? new BalancedConnections(pool) : null;
	}

	/** What the routing DataSource hands a read on this node. */
	DataSource readTarget() {
		return (this.balanced != null) ? this.balanced : this.pool;
	}

	WalPosition known() {
		return new WalPosition(this.known.get());
	}

	/** Whether the node is known to have replayed {@code position}. */
	boolean covers(WalPosition position) {
		return this.known.get() >= position.offset();
	}

	boolean standby() {
		return this.standby;
	}

	/** Whether it answered since its connection last broke or could not be made. */
	boolean healthy() {
		return this.healthy;
	}

	/** Healthy and holding connections: a read on it need not wait for a connect. */
	boolean available() {
		if (!this.healthy) {
			return false;
		}
		HikariPoolMXBean bean = this.pool.getHikariPoolMXBean();
		return bean != null && bean.getTotalConnections() > 0;
	}

	/** Whether the pool has a connection nobody is using. */
	boolean idle() {
		HikariPoolMXBean bean = this.pool.getHikariPoolMXBean();
		return bean != null && bean.getIdleConnections() > 0;
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

	/** The node is behind a position it had reached (rebuilt or rewound). */
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

	@Override
	public String toString() {
		return this.name;
	}

}
