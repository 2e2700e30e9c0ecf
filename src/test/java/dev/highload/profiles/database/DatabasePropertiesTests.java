package dev.highload.profiles.database;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The statement timeouts as the service binds them at start: positive, below the socket
 * timeout, or no start.
 */
class DatabasePropertiesTests {

	@Test
	void theDefaultsAndTheApplicationsReadPoolSettingsBind() {
		DatabaseProperties defaults = bind(Map.of());
		assertThat(defaults.writePool().statementTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(defaults.writePool().socketTimeout()).isEqualTo(Duration.ofSeconds(30));
		DatabaseProperties application = bind(
				Map.of("app.db.read-pool.socket-timeout", "2s", "app.db.read-pool.statement-timeout", "1500ms"));
		assertThat(application.readPool().statementTimeout()).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void aStatementTimeoutNotBelowTheSocketTimeoutIsRefused() {
		assertRefused(Map.of("app.db.read-pool.socket-timeout", "2s", "app.db.read-pool.statement-timeout", "2s"),
				"app.db.read-pool.statement-timeout (2000ms) must be below app.db.read-pool.socket-timeout (2000ms");
		assertRefused(Map.of("app.db.write-pool.statement-timeout", "45s"),
				"app.db.write-pool.statement-timeout (45000ms) must be below app.db.write-pool.socket-timeout");
		// pgjdbc takes whole seconds: 2.5 s is 2 s.
		assertRefused(
				Map.of("app.db.read-pool.socket-timeout", "2500ms", "app.db.read-pool.statement-timeout", "2200ms"),
				"app.db.read-pool.socket-timeout (2000ms, applied in whole seconds)");
	}

	@Test
	void aStatementTimeoutMustBePositive() {
		assertRefused(Map.of("app.db.read-pool.statement-timeout", "0"),
				"app.db.read-pool.statement-timeout must be at least 1ms, was 0ms");
		assertRefused(Map.of("app.db.write-pool.statement-timeout", "-1s"),
				"app.db.write-pool.statement-timeout must be at least 1ms");
	}

	@Test
	void withoutASocketTimeoutAnyPositiveStatementTimeoutGoes() {
		DatabaseProperties properties = bind(
				Map.of("app.db.write-pool.socket-timeout", "0", "app.db.write-pool.statement-timeout", "5m"));
		assertThat(properties.writePool().statementTimeout()).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void tlsToTheNodesGoesIntoEveryUrlAndAVerifyingModeNeedsItsAuthority() {
		assertThat(bind(Map.of()).jdbcUrl(List.of("a:5432"), "any", Duration.ofSeconds(3), Duration.ZERO, "x"))
			.doesNotContain("ssl");
		DatabaseProperties verified = bind(
				Map.of("app.db.ssl.mode", "verify-full", "app.db.ssl.root-cert", "/run/secrets/db ca.crt"));
		assertThat(verified.jdbcUrl(List.of("a:5432"), "any", Duration.ofSeconds(3), Duration.ZERO, "x"))
			.endsWith("&sslmode=verify-full&sslrootcert=%2Frun%2Fsecrets%2Fdb+ca.crt");
		assertRefused(Map.of("app.db.ssl.mode", "verify-full"), "app.db.ssl.root-cert must name the PEM file");
		assertRefused(Map.of("app.db.ssl.mode", "on"), "app.db.ssl.mode must be one of");
	}

	@Test
	void migrationsAreAppliedUnlessOnlyValidated() {
		assertThat(bind(Map.of()).migrations()).isEqualTo(DatabaseProperties.Migrations.APPLY);
		assertThat(bind(Map.of("app.db.migrations", "validate")).migrations())
			.isEqualTo(DatabaseProperties.Migrations.VALIDATE);
	}

	@Test
	void theStatementTimeoutIsSentInTheStartupPacket() {
		DatabaseProperties properties = bind(Map.of("app.db.read-pool.statement-timeout", "1500ms"));
		assertThat(DataSourceConfiguration.statementTimeoutOption(properties.readPool()))
			.isEqualTo("-c statement_timeout=1500");
	}

	private static void assertRefused(Map<String, String> settings, String message) {
		assertThatExceptionOfType(BindException.class).isThrownBy(() -> bind(settings))
			.havingRootCause()
			.isInstanceOf(IllegalArgumentException.class)
			.withMessageContaining(message);
	}

	private static DatabaseProperties bind(Map<String, String> settings) {
		return new Binder(new MapConfigurationPropertySource(settings)).bindOrCreate("app.db",
				DatabaseProperties.class);
	}

}
