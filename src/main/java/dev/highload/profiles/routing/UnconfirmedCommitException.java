package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.sql.SQLWarning;

/**
 * A commit that happened on the primary while no synchronous standby confirmed it (its
 * wait was cancelled), or whose connection broke before the answer came: it may survive
 * or be lost in a failover, so its outcome is unknown. SQLState 08007, "transaction
 * resolution unknown".
 */
public class UnconfirmedCommitException extends SQLException {

	UnconfirmedCommitException(SQLWarning warning) {
		super("Commit not confirmed by a synchronous standby: " + warning.getMessage(), "08007", warning);
	}

	/**
	 * The connection broke while the commit was under way: the primary may have committed
	 * (and been waiting for a standby) or not.
	 */
	UnconfirmedCommitException(SQLException connectionFailure) {
		super("Connection lost during commit: " + connectionFailure.getMessage(), "08007", connectionFailure);
	}

}
