package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import dev.highload.profiles.database.NodePools;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * When a probe that fails takes a node out of reading: only when its connection broke or
 * could not be made (issue 35: a full pool had marked replicas down).
 */
class NodesTests {

	private final HikariDataSource pool = mock(HikariDataSource.class);

	private final Node node;

	private final Nodes nodes;

	NodesTests() {
		HikariPoolMXBean connections = mock(HikariPoolMXBean.class);
		given(connections.getTotalConnections()).willReturn(4);
		given(this.pool.getHikariPoolMXBean()).willReturn(connections);
		given(this.pool.getPoolName()).willReturn("read-replica:5432");
		NodePools pools = mock(NodePools.class);
		given(pools.byHost()).willReturn(Map.of("replica:5432", this.pool));
		HikariDataSource writePool = mock(HikariDataSource.class);
		this.nodes = new Nodes(pools, List.of("replica:5432"), writePool, new KnownPositions(writePool, 5), 1000);
		this.node = this.nodes.readable()[0];
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

}
