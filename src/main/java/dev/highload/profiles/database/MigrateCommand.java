package dev.highload.profiles.database;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@code --app.migrate}: applies the migrations as the schema's owner, then exits, 0 when
 * the schema is at this version's migrations. The compose deployments run it as a
 * one-shot container, the only one given the owner's password; the service then starts
 * with {@code app.db.migrations=validate}.
 * <p>
 * A context of its own, with the configuration files and secrets the service reads
 * (application.yml, /run/secrets) and nothing else: no pool, no router, no web server.
 * This class is deliberately not a {@code @Configuration}, so that the service's
 * component scan never picks it up.
 */
@EnableConfigurationProperties(DatabaseProperties.class)
public class MigrateCommand {

	/** The command-line argument that selects this command. */
	public static final String ARGUMENT = "--app.migrate";

	private static final Logger logger = LoggerFactory.getLogger(MigrateCommand.class);

	/**
	 * Runs the command and exits the JVM with its status.
	 * @param args the command line, {@link #ARGUMENT} among it
	 */
	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(MigrateCommand.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		System.exit(SpringApplication.exit(application.run(args)));
	}

	@Bean
	ApplicationRunner migrate(DatabaseProperties properties, Environment environment) {
		return (ApplicationArguments args) -> {
			var configuration = Flyway.configure()
				.locations(environment.getProperty("spring.flyway.locations", String[].class,
						new String[] { "classpath:db/migration" }));
			MigrationConfiguration.configure(configuration, properties,
					MigrationConfiguration.ownerConnections(properties));
			MigrateResult result = configuration.load().migrate();
			logger.info("Migrations applied as {}: {} now, schema at version {}", properties.migrationUsername(),
					result.migrationsExecuted,
					(result.targetSchemaVersion != null) ? result.targetSchemaVersion : result.initialSchemaVersion);
		};
	}

}
