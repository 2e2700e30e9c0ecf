package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.highload.profiles.database.Standbys;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * {@code /actuator/health/nodes}: each node's role, state and position as the router's
 * monitor last saw them ({@link Nodes}, probed once per
 * {@code app.db.node-check-interval}), so a health check opens no session of its own and
 * costs the nodes nothing; and the primary's view of its standbys, from one query over a
 * pooled connection of the write pool. Up while the write pool reaches a primary; a
 * replica down shows in the details without taking the service down, since reads go
 * elsewhere.
 */
class NodesHealthIndicator extends AbstractHealthIndicator {

	private static final String REPLICATION_SQL = """
			SELECT pg_is_in_recovery() AS standby, application_name, state, sync_state,
			       (extract(epoch FROM replay_lag) * 1000)::bigint AS replay_lag_ms,
			       CASE WHEN NOT pg_is_in_recovery()
			            THEN pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) END AS replay_lag_bytes
			FROM (SELECT 1) AS one LEFT JOIN {standbys} AS r ON true
			ORDER BY application_name""";

	private final Nodes nodes;

	private final DataSource writePool;

	private final Standbys standbys;

	NodesHealthIndicator(Nodes nodes, DataSource writePool, Standbys standbys) {
		super("Node health check failed");
		this.nodes = nodes;
		this.writePool = writePool;
		this.standbys = standbys;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws SQLException {
		Map<String, Object> nodes = new LinkedHashMap<>();
		WalPosition primaryAt = null;
		for (Node node : this.nodes.byHost().values()) {
			if (node.healthy() && !node.standby()) {
				primaryAt = node.known();
			}
		}
		for (Map.Entry<String, Node> entry : this.nodes.byHost().entrySet()) {
			Node node = entry.getValue();
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("role", node.standby() ? "replica" : "primary");
			details.put("state", node.healthy() ? "up" : "down");
			details.put("position", node.known().toString());
			if (node.standby() && primaryAt != null) {
				details.put("behind_primary_bytes", Math.max(0, primaryAt.offset() - node.known().offset()));
			}
			nodes.put(entry.getKey(), details);
		}
		List<Map<String, Object>> replicas = new ArrayList<>();
		boolean primary = replication(replicas);
		builder.status(primary ? Status.UP : Status.DOWN)
			.withDetail("primary", primary ? "reached through the write pool" : "the write pool reaches a standby")
			.withDetail("replicas", replicas)
			.withDetail("nodes", nodes);
	}

	/** The primary's standbys into {@code replicas}; whether the node is a primary. */
	private boolean replication(List<Map<String, Object>> replicas) throws SQLException {
		try (Connection connection = this.writePool.getConnection()) {
			return this.standbys.query(connection, REPLICATION_SQL, (rs) -> standbys(rs, replicas));
		}
	}

	private static boolean standbys(ResultSet rs, List<Map<String, Object>> replicas) throws SQLException {
		boolean standby = false;
		while (rs.next()) {
			standby = rs.getBoolean("standby");
			if (rs.getString("application_name") != null) {
				Map<String, Object> replica = new LinkedHashMap<>();
				replica.put("name", rs.getString("application_name"));
				replica.put("state", rs.getString("state"));
				replica.put("sync_state", rs.getString("sync_state"));
				replica.put("replay_lag_ms", rs.getObject("replay_lag_ms"));
				replica.put("replay_lag_bytes", rs.getObject("replay_lag_bytes"));
				replicas.add(replica);
			}
		}
		return !standby;
	}

}
