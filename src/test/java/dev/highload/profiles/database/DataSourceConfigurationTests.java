package dev.highload.profiles.database;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The validation timeout of an idle connection, derived from the pool's other timeouts.
 */
class DataSourceConfigurationTests {

	@Test
	void validationEndsBeforeACallerStopsWaitingForAConnection() {
		// The read pool's defaults: 3 s for a connection, 2 s for a read.
		assertThat(DataSourceConfiguration.validationTimeout(pool(3_000, 2_000))).isEqualTo(Duration.ofMillis(1_500));
		// The write pool's: the 30 s socket timeout does not raise it.
		assertThat(DataSourceConfiguration.validationTimeout(pool(3_000, 30_000))).isEqualTo(Duration.ofMillis(1_500));
	}

	@Test
	void aShortSocketTimeoutShortensTheValidation() {
		assertThat(DataSourceConfiguration.validationTimeout(pool(3_000, 1_000))).isEqualTo(Duration.ofMillis(1_000));
	}

	@Test
	void anInfiniteSocketTimeoutLeavesHalfTheConnectionTimeout() {
		assertThat(DataSourceConfiguration.validationTimeout(pool(10_000, 0))).isEqualTo(Duration.ofMillis(5_000));
	}

	@Test
	void neverBelowHikarisMinimum() {
		assertThat(DataSourceConfiguration.validationTimeout(pool(300, 100))).isEqualTo(Duration.ofMillis(250));
	}

	private static DatabaseProperties.Pool pool(long connectionTimeoutMillis, long socketTimeoutMillis) {
		return new DatabaseProperties.Pool(16, Duration.ofMillis(connectionTimeoutMillis), Duration.ofSeconds(3),
				Duration.ofMillis(socketTimeoutMillis), Duration.ofMillis(100), Duration.ofMinutes(30));
	}

}
