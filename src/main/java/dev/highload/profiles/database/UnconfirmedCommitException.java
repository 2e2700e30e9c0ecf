package dev.highload.profiles.database;

import java.sql.SQLException;
import java.sql.SQLWarning;

/**
 * A commit that happened on the primary while no synchronous standby confirmed it (its
 * wait was cancelled): it may survive or be lost in a failover, so its outcome is
 * unknown. Also a commit cut off by a broken connection or a server shutdown, or one that
 * passed its deadline ({@code app.db.write-timeout}).
 * <p>
 * SQLState 08007, "transaction resolution unknown".
 */
class UnconfirmedCommitException extends SQLException {

	UnconfirmedCommitException(SQLWarning warning) {
		super("Commit not confirmed by a synchronous standby: " + warning.getMessage(), "08007", warning);
	}

	UnconfirmedCommitException(String message, SQLException cause) {
		super(message, "08007", cause);
	}

}
