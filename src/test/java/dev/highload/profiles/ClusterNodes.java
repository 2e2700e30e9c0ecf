package dev.highload.profiles;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * Superuser connections to the nodes {@code primary}, {@code replica1} and
 * {@code replica2} of the cluster the integration tests run on: the embedded cluster, or
 * the Testcontainers cluster with {@code -Dit.cluster=testcontainers}
 * ({@link TestCluster}). Tests that read node counters or settings take this bean instead
 * of the embedded cluster.
 */
@FunctionalInterface
public interface ClusterNodes {

	/**
	 * A new connection as the superuser {@code postgres}.
	 * @param node {@code primary}, {@code replica1} or {@code replica2}
	 * @param database the database to connect to
	 * @return the connection; close it
	 * @throws SQLException if the node cannot be reached
	 */
	Connection connectAsSuperuser(String node, String database) throws SQLException;

	/**
	 * Runs one statement as the superuser in database {@code postgres}.
	 * @param node {@code primary}, {@code replica1} or {@code replica2}
	 * @param sql the statement
	 * @throws SQLException if the node cannot be reached or the statement fails
	 */
	default void execute(String node, String sql) throws SQLException {
		try (Connection c = connectAsSuperuser(node, "postgres"); Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	/**
	 * Runs one query as the superuser and returns its first column of its first row.
	 * @param node {@code primary}, {@code replica1} or {@code replica2}
	 * @param database the database to connect to
	 * @param sql the query, with {@code ?} for the parameters
	 * @param parameters bound in order with {@code setObject}
	 * @return the value as text, {@code null} for SQL NULL
	 * @throws SQLException if the node cannot be reached, the query fails or returns no
	 * row
	 */
	default String queryValue(String node, String database, String sql, Object... parameters) throws SQLException {
		try (Connection c = connectAsSuperuser(node, database); PreparedStatement s = c.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				s.setObject(i + 1, parameters[i]);
			}
			try (ResultSet rs = s.executeQuery()) {
				if (!rs.next()) {
					throw new SQLException("No row from " + node + ": " + sql);
				}
				return rs.getString(1);
			}
		}
	}

	/**
	 * Takes {@code users} in ACCESS EXCLUSIVE mode on the primary, in a transaction left
	 * open, and waits until both replicas have replayed the lock (it is WAL-logged: each
	 * replica's startup process takes it, and every read of {@code users} there waits
	 * behind it, as on the primary). Closing the returned session ends the transaction
	 * and the lock, whatever fails meanwhile; the lock's end is replayed too.
	 * @param database the service's database
	 * @return the session holding the lock; close it
	 * @throws SQLException if a node cannot be reached
	 */
	default Connection lockUsersEverywhere(String database) throws SQLException {
		Connection lock = connectAsSuperuser("primary", database);
		try {
			lock.setAutoCommit(false);
			try (Statement statement = lock.createStatement()) {
				statement.execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE");
			}
			String lockedByReplay = """
					SELECT count(*) FROM pg_locks
					WHERE relation = 'users'::regclass AND mode = 'AccessExclusiveLock' AND granted""";
			await("the lock replayed on both replicas").atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> !"0".equals(queryValue("replica1", database, lockedByReplay))
						&& !"0".equals(queryValue("replica2", database, lockedByReplay)));
			return lock;
		}
		catch (SQLException | RuntimeException ex) {
			lock.close();
			throw ex;
		}
	}

	/**
	 * How often a node has run statements whose text matches a pattern, from its
	 * {@code pg_stat_statements} in database {@code profiles}: which node served what.
	 * @param node {@code primary}, {@code replica1} or {@code replica2}
	 * @param pattern an {@code ILIKE} pattern
	 * @return the calls so far
	 * @throws SQLException if the node cannot be reached
	 */
	default long statementCalls(String node, String pattern) throws SQLException {
		return Long.parseLong(queryValue(node, "profiles",
				"SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ILIKE ?", pattern));
	}

	/**
	 * Waits until both replicas have replayed everything the primary had written when the
	 * call began. Searches are eventually consistent (docs/consistency.md): a test that
	 * searches for what it just registered waits for this first.
	 * @param timeout how long to wait at most
	 * @throws SQLException if a node cannot be reached
	 * @throws InterruptedException if interrupted while waiting
	 */
	default void awaitReplicasCaughtUp(Duration timeout) throws SQLException, InterruptedException {
		String lsn = queryValue("primary", "postgres", "SELECT pg_current_wal_lsn()::text");
		await("both replicas replayed " + lsn).atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> {
			for (String replica : List.of("replica1", "replica2")) {
				if (!"t".equals(queryValue(replica, "postgres", "SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn", lsn))) {
					return false;
				}
			}
			return true;
		});
	}

}
