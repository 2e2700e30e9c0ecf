package dev.highload.profiles;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

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

}
