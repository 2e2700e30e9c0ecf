package dev.highload.profiles;

import java.time.Clock;
import java.util.Arrays;

import dev.highload.profiles.database.MigrateCommand;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * The user-profile service. With {@code --app.seed.users=N} it seeds N profiles and exits
 * instead of serving; with {@code --app.migrate} it applies the migrations and exits
 * ({@link MigrateCommand}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ProfilesApplication {

	public static void main(String[] args) {
		if (Arrays.asList(args).contains(MigrateCommand.ARGUMENT)) {
			MigrateCommand.main(args);
			return;
		}
		SpringApplication application = new SpringApplication(ProfilesApplication.class);
		if (Arrays.stream(args).anyMatch((arg) -> arg.startsWith("--app.seed.users"))) {
			application.setWebApplicationType(WebApplicationType.NONE);
		}
		application.run(args);
	}

	@Bean
	Clock clock() {
		return Clock.systemUTC();
	}

}
