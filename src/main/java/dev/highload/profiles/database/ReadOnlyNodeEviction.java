package dev.highload.profiles.database;

import java.sql.SQLException;

import com.zaxxer.hikari.SQLExceptionOverride;

/**
 * Evicts a write-pool connection that met SQLState 25006 (read-only SQL transaction): its
 * node is no longer a primary (a demoted or fenced primary now in recovery), and HikariCP
 * on its own would hand the connection out again and again. A new connection goes through
 * pgjdbc's {@code targetServerType=primary} and finds the current primary.
 */
// Public: HikariCP instantiates it by class name.
public class ReadOnlyNodeEviction implements SQLExceptionOverride {

	static final String READ_ONLY_SQL_TRANSACTION = "25006";

	@java.lang.Override
	public Override adjudicate(SQLException ex) {
		return READ_ONLY_SQL_TRANSACTION.equals(ex.getSQLState()) ? Override.MUST_EVICT : Override.CONTINUE_EVICT;
	}

}
