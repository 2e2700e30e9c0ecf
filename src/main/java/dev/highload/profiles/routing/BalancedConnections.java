package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.ResultSet;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import javax.sql.DataSource;

import org.postgresql.PGConnection;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The pool of a balanced replica endpoint ({@code app.db.routing=balanced}), as the
 * routing DataSource hands it to a read. Behind such an endpoint each connection reaches
 * one replica, chosen when it was opened, and two connections may reach two replicas at
 * different positions; so what the router knows, it knows per connection.
 * <p>
 * A position a statement on a connection reported is one its replica had replayed when
 * the statement ran, and therefore one every later snapshot on that connection includes.
 * Before a read that needs a position, the connection it got is checked against what is
 * known of that connection: if that falls short, the connection is asked for its position
 * first (one statement more). A connection still behind is handed back and the read is
 * refused with {@link Behind}, which the router answers by reading on the primary. The
 * read's own statement cannot settle it: the position it reports may be later than its
 * snapshot.
 */
final class BalancedConnections extends DelegatingDataSource {

	/** Positions by physical connection; a closed connection's entry goes with it. */
	private final Map<PGConnection, Long> known = Collections.synchronizedMap(new WeakHashMap<>());

	BalancedConnections(DataSource pool) {
		super(pool);
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = obtainTargetDataSource().getConnection();
		RoutedRead read = RoutedRead.current();
		if (read == null) {
			return connection;
		}
		try {
			PGConnection physical = connection.unwrap(PGConnection.class);
			Long position = this.known.get(physical);
			long covered = (position != null) ? position : 0;
			if (read.required() > 0 && covered < read.required()) {
				covered = position(connection);
				this.known.put(physical, covered);
				read.checked();
			}
			if (covered < read.required()) {
				throw new Behind(covered, read.required());
			}
			read.connection(physical, covered);
			return connection;
		}
		catch (SQLException | RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	/** What a read on {@code connection} saw last: no later read there sees less. */
	void seen(PGConnection connection, long position) {
		this.known.merge(connection, position, Math::max);
	}

	/** Forgets a connection whose replica went back (rebuilt or rewound). */
	void forget(PGConnection connection) {
		this.known.remove(connection);
	}

	private static long position(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery(NodePosition.QUERY)) {
			if (!rs.next()) {
				throw new SQLException("node_position returned no row");
			}
			return rs.getLong(1);
		}
	}

	/**
	 * The connection reached a replica that has not replayed the position the read needs.
	 */
	static final class Behind extends SQLException {

		Behind(long at, long required) {
			super("The balanced endpoint's replica is at " + at + ", the read needs " + required);
		}

		@Override
		public synchronized Throwable fillInStackTrace() {
			return this;
		}

	}

}
