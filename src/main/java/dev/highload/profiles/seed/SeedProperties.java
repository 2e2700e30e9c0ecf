package dev.highload.profiles.seed;

import java.nio.file.Path;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The bulk seeding command, run as
 * {@code ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000}.
 *
 * @param users how many profiles to generate; 0 does not seed
 * @param randomSeed the same seed always generates the same profiles and ids
 * @param password the password every seeded user shares (hashed once)
 * @param idsFile where the generated ids are written, one per line after an {@code id}
 * header, for the load simulations
 */
@ConfigurationProperties("app.seed")
public record SeedProperties(@DefaultValue("0") int users, @DefaultValue("42") long randomSeed,
		@DefaultValue("seeded-password") String password, @DefaultValue(".data/user-ids.csv") Path idsFile) {

}
