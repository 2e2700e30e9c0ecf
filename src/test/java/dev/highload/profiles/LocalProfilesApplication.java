package dev.highload.profiles;

import java.util.Arrays;

import dev.highload.profiles.cluster.FailoverCommand;

import org.springframework.boot.SpringApplication;

/**
 * The service on its own embedded 3-node cluster (package {@code cluster}), no Docker
 * needed: what {@code ./mvnw spring-boot:run} starts, on the test classpath, so that the
 * cluster and its PostgreSQL binaries stay out of the production jar. Arguments are the
 * service's; {@code --app.seed.users=N} seeds (beside a running service, into its
 * cluster), and {@code --app.failover} fails the cluster over to a standby and exits
 * ({@link FailoverCommand}) instead of starting the service.
 */
public final class LocalProfilesApplication {

	private LocalProfilesApplication() {
	}

	public static void main(String[] args) {
		if (Arrays.stream(args).anyMatch(FailoverCommand::selects)) {
			System.exit(FailoverCommand.run(args));
		}
		// The cluster's configuration is found by the application's component scan; its
		// defaults (ports, roles, a throw-away token key) come from spring.factories.
		SpringApplication.from(ProfilesApplication::main).run(args);
	}

}
