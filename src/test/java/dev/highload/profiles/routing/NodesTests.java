package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.highload.profiles.database.NodePools;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * When a probe that fails takes a node out of reading: only when its connection broke or
 * could not be made (issue 35: a full pool had marked replicas down); and which pool a
 * read that must go to the primary takes.
 */
class NodesTests {

	private final HikariDataSource pool = pool("read-replica:5432", 4);

	private final Node node;

	private final Nodes nodes;

	NodesTests() {
		NodePools pools = mock(NodePools.class);
		given(pools.byHost()).willReturn(Map.of("replica:5432", this.pool));
		HikariDataSource writePool = mock(HikariDataSource.class);
		this.nodes = new Nodes(pools, List.of("replica:5432"), false, writePool, new KnownPositions(writePool, 5),
				1000);
		this.node = this.nodes.readable()[0];
	}

	/**
	 * Issue 35: a read pushed onto the primary takes a connection of the primary's read
	 * pool, not of the write pool that registrations and logins need.
	 */
	@Test
	void aReadThatMustGoToThePrimaryGoesThroughThePrimarysReadPool() throws SQLException {
		HikariDataSource primaryReads = pool("read-primary:5432", 4);
		HikariDataSource replicaReads = pool("read-replica:5432", 4);
		HikariDataSource writePool = pool("primary", 16);
		given(replicaReads.getConnection()).willThrow(new SQLTransientConnectionException("busy"));
		NodePools pools = mock(NodePools.class);
		Map<String, HikariDataSource> byHost = new LinkedHashMap<>();
		byHost.put("primary:5432", primaryReads);
		byHost.put("replica:5432", replicaReads);
		given(pools.byHost()).willReturn(byHost);
		Nodes nodes = new Nodes(pools, List.of("replica:5432"), false, writePool, new KnownPositions(writePool, 5),
				1000);
		NodeChoice choice = new NodeChoice(nodes, TimeUnit.MILLISECONDS.toNanos(2), new SimpleMeterRegistry());
		Node chosen = choice.choose(new WalPosition(0x16B3748L), null);
		assertThat(chosen).isSameAs(nodes.readable()[0]).isNotSameAs(nodes.primary());
		assertThat(choice.choose(new WalPosition(0x16B3748L), chosen)).as("that node just broke: the write pool")
			.isSameAs(nodes.primary());
	}

	@Test
	void aPoolWithNoConnectionFreeInTimeLeavesTheNodeInReading() throws SQLException {
		// HikariCP's timeout, when the pool is merely busy, carries no SQLState.
		given(this.pool.getConnection()).willThrow(new SQLTransientConnectionException(
				"read-replica:5432 - Connection is not available, request timed out after 30ms."));
		assertThat(this.nodes.probe(this.node)).isFalse();
		assertThat(this.node.available()).isTrue();
	}

	@Test
	void aCancelledStatementLeavesTheNodeInReading() throws SQLException {
		given(this.pool.getConnection()).willThrow(new SQLException("canceling statement", "57014"));
		assertThat(this.nodes.probe(this.node)).isFalse();
		assertThat(this.node.available()).isTrue();
	}

	@Test
	void aConnectionThatCannotBeMadeTakesTheNodeOutOfReading() throws SQLException {
		// HikariCP's timeout after failed connects carries the last failure's SQLState.
		given(this.pool.getConnection()).willThrow(new SQLTransientConnectionException(
				"read-replica:5432 - Connection is not available, request timed out after 30ms.", "08001"));
		assertThat(this.nodes.probe(this.node)).isFalse();
		assertThat(this.node.available()).isFalse();
	}

	@Test
	void aServerShuttingDownTakesTheNodeOutOfReading() throws SQLException {
		given(this.pool.getConnection()).willThrow(new SQLException("terminating connection", "57P01"));
		assertThat(this.nodes.probe(this.node)).isFalse();
		assertThat(this.node.available()).isFalse();
	}

	private static HikariDataSource pool(String name, int connections) {
		HikariDataSource pool = mock(HikariDataSource.class);
		HikariPoolMXBean bean = mock(HikariPoolMXBean.class);
		given(bean.getTotalConnections()).willReturn(connections);
		given(pool.getHikariPoolMXBean()).willReturn(bean);
		given(pool.getPoolName()).willReturn(name);
		return pool;
	}

}
