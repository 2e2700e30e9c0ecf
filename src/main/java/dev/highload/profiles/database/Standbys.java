package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Where the service reads the primary's standbys (the health details, the replication
 * metrics): {@code monitoring.standbys()}, which the deployments make
 * (db/scripts/monitoring.sql) so that the runtime role needs no membership of
 * {@code pg_read_all_stats}, which would let it read every session's query text. It
 * returns pg_stat_replication's {@code application_name}, {@code state},
 * {@code sync_state}, {@code replay_lsn} and {@code replay_lag}.
 * <p>
 * On a cluster set up without the function (or without the runtime role's grant on it)
 * the first read logs a warning and every read from then on goes to pg_stat_replication
 * itself, whose walsender columns PostgreSQL shows only to members of
 * {@code pg_read_all_stats}: a role without it sees each standby's name, but neither its
 * state nor its positions (the health details show them empty; the metrics leave the
 * standby out).
 */
@Component
public class Standbys {

	private static final Logger log = LoggerFactory.getLogger(Standbys.class);

	/** In a statement, the relation the standbys are read from. */
	public static final String RELATION = "{standbys}";

	private static final String FUNCTION = "monitoring.standbys()";

	private static final String VIEW = "pg_stat_replication";

	/** undefined_function, invalid_schema_name, insufficient_privilege. */
	private static final Set<String> NOT_THERE = Set.of("42883", "3F000", "42501");

	private volatile boolean function = true;

	/** A handler of the result of a statement on the standbys. */
	@FunctionalInterface
	public interface Rows<T> {

		T read(ResultSet rs) throws SQLException;

	}

	/**
	 * Runs {@code sql}, in which {@value #RELATION} stands for the standbys, on
	 * {@code connection}, and hands its result to {@code rows}.
	 */
	public <T> T query(Connection connection, String sql, Rows<T> rows) throws SQLException {
		if (this.function) {
			try {
				return run(connection, sql.replace(RELATION, FUNCTION), rows);
			}
			catch (SQLException ex) {
				if (!NOT_THERE.contains(ex.getSQLState())) {
					throw ex;
				}
				this.function = false;
				log.warn(
						"Cannot call {} ({}): reading {} instead, whose walsender columns show only to a "
								+ "member of pg_read_all_stats; create the function as docs/operations.md shows",
						FUNCTION, ex.getMessage(), VIEW);
				if (!connection.getAutoCommit()) {
					connection.rollback();
				}
			}
		}
		return run(connection, sql.replace(RELATION, VIEW), rows);
	}

	private static <T> T run(Connection connection, String sql, Rows<T> rows) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
			return rows.read(rs);
		}
	}

}
