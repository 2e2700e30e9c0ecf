package dev.highload.profiles.routing;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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

	@Test
	void withASocketDirectoryEveryNodeIsReachedThroughItsUnixSocket() throws Exception {
		DatabaseProperties properties = properties(Path.of("/run/pg sockets"));
		String url = DataSourceConfiguration.jdbcUrl(properties.nodes(), "primary", properties, properties.writePool());
		assertThat(url).startsWith("jdbc:postgresql://127.0.0.1:15432,127.0.0.1:15433,127.0.0.1:15434/profiles?")
			.contains("&socketFactory=" + UnixDomainSockets.class.getName())
			.endsWith("&socketFactoryArg=%2Frun%2Fpg+sockets")
			.doesNotContain("tcpKeepAlive");
		assertThat(new UnixDomainSockets("/run/pg sockets").addressFromHost("127.0.0.1", 15433).getFile())
			.isEqualTo(new File("/run/pg sockets/.s.PGSQL.15433"));
	}

	@Test
	void withoutOneTheNodesAreReachedOverTcp() {
		for (Path none : new Path[] { null, Path.of("") }) {
			DatabaseProperties properties = properties(none);
			assertThat(properties.socketDirectory()).isNull();
			assertThat(DataSourceConfiguration.jdbcUrl(properties.replicas(), "preferSecondary", properties,
					properties.readPool()))
				.endsWith("&tcpKeepAlive=true")
				.doesNotContain("socketFactory");
		}
	}

	private static DatabaseProperties properties(Path socketDirectory) {
		DatabaseProperties.Pool pool = pool(3_000, 2_000);
		return new DatabaseProperties(List.of("127.0.0.1:15432", "127.0.0.1:15433", "127.0.0.1:15434"),
				List.of("127.0.0.1:15433", "127.0.0.1:15434"), "profiles", "profiles", "profiles", true,
				Duration.ofSeconds(5), pool, pool, socketDirectory);
	}

	private static DatabaseProperties.Pool pool(long connectionTimeoutMillis, long socketTimeoutMillis) {
		return new DatabaseProperties.Pool(16, Duration.ofMillis(connectionTimeoutMillis), Duration.ofSeconds(3),
				Duration.ofMillis(socketTimeoutMillis), Duration.ofMinutes(30));
	}

}
