package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/health/nodes}: every configured node's role, reachability and
 * replication state, probed over its own short-lived connection so that a full pool does
 * not hide a healthy node. Up while a primary answers; a replica down shows in the
 * details without taking the service down, since reads fall back to the primary.
 */
@Component("nodes")
class NodesHealthIndicator extends AbstractHealthIndicator {

	private static final String NODE_SQL = """
			SELECT pg_is_in_recovery() AS standby,
			       CASE WHEN pg_is_in_recovery()
			            THEN pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) END AS replay_lag_bytes,
			       CASE WHEN pg_is_in_recovery()
			            THEN (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::bigint END
			            AS last_replay_age_ms""";

	private static final String REPLICATION_SQL = """
			SELECT application_name, state, sync_state,
			       (extract(epoch FROM replay_lag) * 1000)::bigint AS replay_lag_ms,
			       pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS replay_lag_bytes
			FROM pg_stat_replication ORDER BY application_name""";

	private final DatabaseProperties properties;

	NodesHealthIndicator(DatabaseProperties properties) {
		super("Node health check failed");
		this.properties = properties;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Set<String> hosts = new LinkedHashSet<>(this.properties.nodes());
		hosts.addAll(this.properties.replicas());
		int primaries = 0;
		Map<String, Object> nodes = new LinkedHashMap<>();
		for (String host : hosts) {
			Map<String, Object> node = probe(host);
			if ("primary".equals(node.get("role"))) {
				primaries++;
			}
			nodes.put(host, node);
		}
		builder.status((primaries == 1) ? Status.UP : Status.DOWN);
		builder.withDetail("primaries", primaries).withDetail("nodes", nodes);
	}

	private Map<String, Object> probe(String host) {
		Map<String, Object> node = new LinkedHashMap<>();
		String url = this.properties.jdbcUrl(List.of(host), "any", Duration.ofSeconds(2), Duration.ofSeconds(3),
				"user-profiles-health");
		try (Connection connection = DriverManager.getConnection(url, this.properties.username(),
				this.properties.password()); Statement statement = connection.createStatement()) {
			try (ResultSet rs = statement.executeQuery(NODE_SQL)) {
				rs.next();
				boolean standby = rs.getBoolean("standby");
				node.put("role", standby ? "replica" : "primary");
				node.put("state", "up");
				if (standby) {
					node.put("replay_lag_bytes", rs.getLong("replay_lag_bytes"));
					node.put("last_replay_age_ms", rs.getObject("last_replay_age_ms"));
				}
				else {
					node.put("replicas", replicas(statement));
				}
			}
		}
		catch (SQLException ex) {
			node.put("role", "unknown");
			node.put("state", "down");
			node.put("error", ex.getMessage());
		}
		return node;
	}

	private static List<Map<String, Object>> replicas(Statement statement) throws SQLException {
		List<Map<String, Object>> replicas = new ArrayList<>();
		try (ResultSet rs = statement.executeQuery(REPLICATION_SQL)) {
			while (rs.next()) {
				Map<String, Object> replica = new LinkedHashMap<>();
				replica.put("name", rs.getString("application_name"));
				replica.put("state", rs.getString("state"));
				replica.put("sync_state", rs.getString("sync_state"));
				replica.put("replay_lag_ms", rs.getObject("replay_lag_ms"));
				replica.put("replay_lag_bytes", rs.getObject("replay_lag_bytes"));
				replicas.add(replica);
			}
		}
		return replicas;
	}

}
