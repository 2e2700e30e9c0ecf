package dev.highload.profiles.database;

import java.sql.SQLException;
import java.sql.SQLWarning;

/**
 * The three kinds of {@link DatabaseFailureException}, made for the tests of the package
 * that answers them (failure.FailureAnswersTests): only {@link DatabaseFailures} makes
 * them.
 */
public final class DatabaseFailureFixtures {

	private DatabaseFailureFixtures() {
	}

	public static DatabaseFailureException unavailable() {
		return new DatabaseUnavailableException(new SQLException("Connection refused", "08001"));
	}

	public static DatabaseFailureException queryCancelled() {
		return new QueryCancelledException(new SQLException("canceling statement due to statement timeout", "57014"));
	}

	public static DatabaseFailureException outcomeUnknown() {
		return new OutcomeUnknownException(
				new UnconfirmedCommitException(new SQLWarning("canceling wait for synchronous replication")));
	}

}
