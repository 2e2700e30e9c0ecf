package dev.highload.profiles.database;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import org.springframework.jdbc.datasource.AbstractDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The commit deadline without a database: a connection whose commit blocks the way
 * PostgreSQL's does while no synchronous standby is connected.
 */
class SynchronousCommitCheckTests {

	private static final Duration DEADLINE = Duration.ofMillis(300);

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void aCommitPastItsDeadlineIsCancelledAndReportedAsUnconfirmed() throws Exception {
		// PostgreSQL's answer to a cancelled synchronous wait: success, with a warning.
		FakeConnection fake = new FakeConnection(true);
		Connection connection = check(fake).getConnection();

		long start = System.nanoTime();
		assertThatExceptionOfType(UnconfirmedCommitException.class).isThrownBy(connection::commit)
			.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("08007"));
		long millis = (System.nanoTime() - start) / 1_000_000;

		assertThat(fake.cancels).hasValue(1);
		assertThat(fake.aborts).hasValue(0);
		assertThat(millis).isBetween(DEADLINE.toMillis(), DEADLINE.toMillis() + 2_000);
		assertThat(unconfirmed()).isEqualTo(1);
	}

	@Test
	void aCommitThatIgnoresTheCancelHasItsConnectionAbortedAndIsUnconfirmed() throws Exception {
		// A primary that answers nothing: the cancel changes nothing, the abort breaks
		// the connection and the commit fails with a connection error.
		FakeConnection fake = new FakeConnection(false);
		Connection connection = check(fake).getConnection();

		long start = System.nanoTime();
		assertThatExceptionOfType(UnconfirmedCommitException.class).isThrownBy(connection::commit)
			.withCauseInstanceOf(SQLException.class);
		long millis = (System.nanoTime() - start) / 1_000_000;

		assertThat(fake.cancels).hasValue(1);
		assertThat(fake.aborts).hasValue(1);
		assertThat(millis).isBetween(2 * DEADLINE.toMillis(), 2 * DEADLINE.toMillis() + 2_000);
		assertThat(unconfirmed()).isEqualTo(1);
	}

	@Test
	void aCommitWithinItsDeadlineIsNeverCancelledLater() throws Exception {
		FakeConnection fake = new FakeConnection(true);
		fake.released.countDown();
		Connection connection = check(fake).getConnection();

		connection.commit();
		// Past both deadlines: nothing may reach the connection, which is in use again.
		Thread.sleep(3 * DEADLINE.toMillis());

		assertThat(fake.cancels).hasValue(0);
		assertThat(fake.aborts).hasValue(0);
		assertThat(unconfirmed()).isZero();
	}

	private SynchronousCommitCheck check(FakeConnection fake) {
		return new SynchronousCommitCheck(new AbstractDataSource() {

			@Override
			public Connection getConnection() {
				return fake.proxy();
			}

			@Override
			public Connection getConnection(String username, String password) {
				return fake.proxy();
			}

		}, this.registry, DEADLINE);
	}

	private double unconfirmed() {
		return this.registry.get("profiles.commits.unconfirmed").counter().count();
	}

	/**
	 * A pgjdbc connection reduced to what a commit needs. Its commit blocks until
	 * released; the cancel releases it (with PostgreSQL's warning) when
	 * {@code cancelWorks}, the abort always does (with a connection error).
	 */
	private static final class FakeConnection {

		final CountDownLatch released = new CountDownLatch(1);

		final AtomicInteger cancels = new AtomicInteger();

		final AtomicInteger aborts = new AtomicInteger();

		final AtomicReference<SQLWarning> warning = new AtomicReference<>();

		private final boolean cancelWorks;

		private volatile boolean aborted;

		FakeConnection(boolean cancelWorks) {
			this.cancelWorks = cancelWorks;
		}

		Connection proxy() {
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { Connection.class, PGConnection.class }, (proxy, method, args) -> {
						switch (method.getName()) {
							case "unwrap":
								return proxy;
							case "clearWarnings":
								this.warning.set(null);
								return null;
							case "getWarnings":
								return this.warning.get();
							case "commit":
								if (!this.released.await(10, TimeUnit.SECONDS)) {
									throw new AssertionError("commit never released");
								}
								if (this.aborted) {
									throw new SQLException("An I/O error occurred while sending to the backend.",
											"08006");
								}
								return null;
							case "cancelQuery":
								this.cancels.incrementAndGet();
								if (this.cancelWorks) {
									this.warning.set(new SQLWarning(
											"canceling wait for synchronous replication due to user request"));
									this.released.countDown();
								}
								return null;
							case "abort":
								this.aborts.incrementAndGet();
								this.aborted = true;
								this.released.countDown();
								return null;
							default:
								throw new UnsupportedOperationException(method.getName());
						}
					});
		}

	}

}
