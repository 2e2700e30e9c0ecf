package dev.highload.profiles;

import java.time.Clock;
import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * The user-profile service. With {@code --app.seed.users=N} it seeds N profiles and exits
 * instead of serving.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ProfilesApplication {

	public static void main(String[] args) {
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
