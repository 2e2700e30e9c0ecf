package dev.highload.profiles.seed;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

/** Seeds {@code app.seed.users} profiles when that is set, then exits. */
@Component
@ConditionalOnExpression("${app.seed.users:0} > 0")
class SeedCommand implements ApplicationRunner {

	private final ProfileSeeder seeder;

	private final SeedProperties properties;

	private final ConfigurableApplicationContext context;

	SeedCommand(ProfileSeeder seeder, SeedProperties properties, ConfigurableApplicationContext context) {
		this.seeder = seeder;
		this.properties = properties;
		this.context = context;
	}

	@Override
	public void run(ApplicationArguments args) throws Exception {
		this.seeder.seed(this.properties.users(), this.properties.randomSeed(), this.properties.password(),
				this.properties.idsFile());
		System.exit(SpringApplication.exit(this.context, () -> 0));
	}

}
