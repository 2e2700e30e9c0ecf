package dev.highload.profiles;

import java.time.Clock;
import java.util.Arrays;
import java.util.Map;

import dev.highload.profiles.cluster.FailoverCommand;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * The user-profile service. With {@code --app.seed.users=N} it seeds N profiles and exits
 * instead of serving, into the cluster of a service that already runs if there is one;
 * with {@code --app.failover} it fails the embedded cluster over to a standby and exits
 * ({@link FailoverCommand}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ProfilesApplication {

	public static void main(String[] args) {
		if (Arrays.stream(args).anyMatch(FailoverCommand::selects)) {
			System.exit(FailoverCommand.run(args));
		}
		SpringApplication application = new SpringApplication(ProfilesApplication.class);
		if (Arrays.stream(args).anyMatch((arg) -> arg.startsWith("--app.seed.users"))) {
			application.setWebApplicationType(WebApplicationType.NONE);
			// Beside a running service, seeding uses its cluster and leaves it up.
			application.setDefaultProperties(Map.of("app.cluster.join-running", "true"));
		}
		application.run(args);
	}

	@Bean
	Clock clock() {
		return Clock.systemUTC();
	}

}
