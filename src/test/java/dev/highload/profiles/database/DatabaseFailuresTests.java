package dev.highload.profiles.database;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLWarning;

import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.support.SQLStateSQLExceptionTranslator;
import org.springframework.orm.jpa.JpaSystemException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class DatabaseFailuresTests {

	@Test
	void aCommitCutOffByABrokenConnectionOrAShutdownHasAnUnknownOutcome() {
		assertThat(DatabaseFailures.isOutcomeUnknown(new SQLException("I/O error", "08006"))).isTrue();
		assertThat(DatabaseFailures.isOutcomeUnknown(new SQLException("admin shutdown", "57P01"))).isTrue();
		// Closed before the commit was sent: nothing can have been committed.
		assertThat(DatabaseFailures.isOutcomeUnknown(new SQLException("closed", "08003"))).isFalse();
		assertThat(DatabaseFailures.isOutcomeUnknown(new SQLException("serialization", "40001"))).isFalse();
		assertThat(DatabaseFailures.isOutcomeUnknown(new SQLException("no state"))).isFalse();
	}

	@Test
	void aBrokenConnectionIsOneThatBrokeNotAPoolWithoutConnections() {
		assertThat(DatabaseFailures.isBrokenConnection(failure(new SQLException("refused", "08001")))).isTrue();
		assertThat(DatabaseFailures.isBrokenConnection(failure(new SQLException("shutdown", "57P01")))).isTrue();
		assertThat(DatabaseFailures.isBrokenConnection(failure(new SQLException("read only", "25006")))).isFalse();
		assertThat(DatabaseFailures.isBrokenConnection(
				new CannotCreateTransactionException("pool", new SQLTransientConnectionException("timed out"))))
			.isFalse();
	}

	@Test
	void connectionFailuresPoolTimeoutsShutdownsAndReadOnlyNodesAreDatabaseUnavailable() {
		assertUnavailable(failure(new SQLException("refused", "08001")));
		assertUnavailable(new JpaSystemException(new RuntimeException(new SQLException("shutdown", "57P01"))));
		assertUnavailable(new JpaSystemException(new RuntimeException(new SQLException("too many", "53300"))));
		assertUnavailable(new JpaSystemException(new RuntimeException(new SQLException("read only", "25006"))));
		assertUnavailable(new CannotCreateTransactionException("no connection"));
		assertUnavailable(new JpaSystemException(new RuntimeException(new SQLTransientConnectionException("pool"))));
	}

	@Test
	void aStatementCancelledByItsTimeoutIsNotABrokenConnectionButACancelledQuery() {
		// What JdbcClient makes of pgjdbc's 57014.
		RuntimeException timeout = new SQLStateSQLExceptionTranslator().translate("query", "SELECT",
				new SQLException("ERROR: canceling statement due to statement timeout", "57014"));
		assertThat(timeout).isInstanceOf(QueryTimeoutException.class);
		// Not repeated on a fresh connection (UserService retries broken ones only).
		assertThat(DatabaseFailures.isBrokenConnection(timeout)).isFalse();
		RuntimeException translated = DatabaseFailures.translate(timeout);
		assertThat(translated).isInstanceOf(QueryCancelledException.class).hasCause(timeout);
	}

	@Test
	void otherFailuresPassUnchanged() {
		RuntimeException duplicate = new DataIntegrityViolationException("duplicate",
				new SQLException("duplicate key", "23505"));
		assertThat(DatabaseFailures.translate(duplicate)).isSameAs(duplicate);
		RuntimeException bug = new IllegalStateException("a bug");
		assertThat(DatabaseFailures.translate(bug)).isSameAs(bug);
	}

	@Test
	void anUnconfirmedCommitIsOutcomeUnknownEvenThoughItsStateIsAConnectionState() {
		RuntimeException commit = new TransactionSystemException("commit failed",
				new UnconfirmedCommitException(new SQLWarning("canceling wait for synchronous replication")));
		RuntimeException translated = DatabaseFailures.translate(commit);
		assertThat(translated).isInstanceOf(OutcomeUnknownException.class).hasCause(commit);
	}

	@Test
	void theServicesOwnExceptionIsNotTranslatedTwice() {
		RuntimeException once = DatabaseFailures.translate(new CannotCreateTransactionException("no connection"));
		assertThat(DatabaseFailures.translate(once)).isSameAs(once);
	}

	@Test
	void everyServiceCallIsTranslatedIncludingWhatItsCommitThrows() {
		ProxyFactory factory = new ProxyFactory(new Committing());
		factory.addAdvisor(DatabaseFailureTranslation.databaseFailureAdvisor());
		Committing service = (Committing) factory.getProxy();
		assertThatExceptionOfType(OutcomeUnknownException.class).isThrownBy(service::commit);
	}

	private static void assertUnavailable(RuntimeException failure) {
		RuntimeException translated = DatabaseFailures.translate(failure);
		assertThat(translated).isInstanceOf(DatabaseUnavailableException.class).hasCause(failure);
	}

	private static RuntimeException failure(SQLException cause) {
		return new DataAccessResourceFailureException("failed", cause);
	}

	@Service
	static class Committing {

		void commit() {
			throw new TransactionSystemException("commit failed", new UnconfirmedCommitException(
					"Connection broke during the commit", new SQLException("I/O error", "08006")));
		}

	}

}
