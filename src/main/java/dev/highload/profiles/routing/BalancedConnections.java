package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.postgresql.core.BaseConnection;

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

	/**
	 * Past this many entries, those of closed connections are dropped when a new one
	 * comes: a pool replaces its connections now and then (HikariCP's maximum lifetime).
	 */
	private static final int PURGE_ABOVE = 64;

	/**
	 * The furthest position reported on each physical connection. Read on every read of
	 * the endpoint by every request thread, so without a lock.
	 */
	private final ConcurrentHashMap<BaseConnection, AtomicLong> known = new ConcurrentHashMap<>();

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
			BaseConnection physical = connection.unwrap(BaseConnection.class);
			AtomicLong known = this.known.get(physical);
			if (known == null) {
				known = track(physical);
			}
			long covered = known.get();
			if (read.required() > 0 && covered < read.required()) {
				covered = known.accumulateAndGet(position(connection), Math::max);
				read.checked();
			}
			if (covered < read.required()) {
				throw new Behind(covered, read.required());
			}
			read.connection(physical, known, covered);
			return connection;
		}
		catch (SQLException | RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	private AtomicLong track(BaseConnection physical) {
		if (this.known.size() > PURGE_ABOVE) {
			this.known.keySet().removeIf(BalancedConnections::closed);
		}
		return this.known.computeIfAbsent(physical, (c) -> new AtomicLong());
	}

	private static boolean closed(BaseConnection connection) {
		try {
			return connection.isClosed();
		}
		catch (SQLException ex) {
			return true;
		}
	}

	/** Forgets a connection whose replica went back (rebuilt or rewound). */
	void forget(BaseConnection connection) {
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
