package dev.highload.profiles.database;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.postgresql.Driver;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * The schema: Flyway's connections and what it does at start.
 * <p>
 * Flyway and the seeder connect as the role that owns the schema
 * ({@code app.db.migration.*}, the runtime role when unset) over connections of their own
 * ({@link SchemaOwnerConnections}). With {@code app.db.migrations=validate} the service
 * applies nothing: a deployment runs {@code --app.migrate} ({@link MigrateCommand})
 * first, as the owner, and the service, holding the runtime role's password alone, checks
 * that it did.
 */
@Configuration(proxyBeanMethods = false)
class MigrationConfiguration {

	@Bean
	SchemaOwnerConnections schemaOwnerConnections(DatabaseProperties properties) {
		return ownerConnections(properties);
	}

	@Bean
	FlywayConfigurationCustomizer migrationsAsTheSchemaOwner(DatabaseProperties properties,
			SchemaOwnerConnections owner) {
		return (configuration) -> configure(configuration, properties, owner);
	}

	/**
	 * What Flyway does at start, by the typed {@code app.db.migrations}: migrate, or
	 * validate only. Validation refuses a migration that is known and not applied, or
	 * applied and changed since; the message says what to run.
	 */
	@Bean
	FlywayMigrationStrategy migrationsAsConfigured(DatabaseProperties properties) {
		return (flyway) -> {
			if (properties.migrations() == DatabaseProperties.Migrations.APPLY) {
				flyway.migrate();
				return;
			}
			try {
				flyway.validate();
			}
			catch (FlywayException ex) {
				throw new IllegalStateException("app.db.migrations=validate: the schema is not at this version's "
						+ "migrations. Run them first as the schema's owner (java -jar user-profiles.jar --app.migrate; "
						+ "in the compose deployments, the migrate service). " + ex.getMessage(), ex);
			}
		};
	}

	static SchemaOwnerConnections ownerConnections(DatabaseProperties properties) {
		// No socket timeout: a migration or a VACUUM may take longer than any request.
		String url = properties.jdbcUrl(properties.nodes(), "primary", properties.writePool().connectTimeout(),
				Duration.ZERO, "user-profiles-migration");
		return new SchemaOwnerConnections(new SimpleDriverDataSource(new Driver(), url, properties.migrationUsername(),
				properties.migrationPassword()));
	}

	/**
	 * Flyway connects as the schema's owner, and {@code ${runtime_role}} in the
	 * migrations is the role they grant the service's privileges to, as a quoted
	 * identifier. With one role it is the owner itself, and the grants change nothing.
	 */
	static void configure(FluentConfiguration configuration, DatabaseProperties properties,
			SchemaOwnerConnections owner) {
		configuration.dataSource(owner.dataSource());
		Map<String, String> placeholders = new HashMap<>(configuration.getPlaceholders());
		placeholders.put("runtime_role", quotedIdentifier(properties.username()));
		configuration.placeholders(placeholders);
	}

	static String quotedIdentifier(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

}
