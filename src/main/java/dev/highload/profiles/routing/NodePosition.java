package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * A node's WAL position and role, as the view {@code node_position} gives them
 * (db/migration/V4__node_position.sql, the one place they are defined). Every read
 * statement selects the view's two columns first, with its result, and reports them here
 * ({@link #report}), so that the router learns where each node is from the reads
 * themselves and no read pays a query of its own for it.
 */
public final class NodePosition {

	/** The position and role alone: the monitor's probe. */
	static final String QUERY = "SELECT position, standby FROM node_position";

	private NodePosition() {
	}

	/**
	 * Tells the routed read running on this thread what its statement saw: the first two
	 * columns of the current row, {@code position} and {@code standby}. Outside a routed
	 * read it does nothing.
	 * @param rs a result set on a row of a statement that selects the view's columns
	 * first
	 * @throws SQLException if the columns cannot be read
	 */
	public static void report(ResultSet rs) throws SQLException {
		RoutedRead.report(rs.getLong(1), rs.getBoolean(2));
	}

	/**
	 * Asks one node for its position and role, on a connection of {@code node}.
	 * @param node a DataSource of one node
	 * @return what the node answered
	 * @throws SQLException if it did not
	 */
	static Sample query(DataSource node) throws SQLException {
		try (Connection connection = node.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(QUERY)) {
			if (!rs.next()) {
				throw new SQLException("node_position returned no row");
			}
			return new Sample(new WalPosition(rs.getLong(1)), rs.getBoolean(2));
		}
	}

	/**
	 * One answer of a node.
	 *
	 * @param position replayed (a replica) or flushed (the primary)
	 * @param standby whether the node is a replica
	 */
	record Sample(WalPosition position, boolean standby) {
	}

}
