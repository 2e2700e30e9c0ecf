package dev.highload.profiles.cluster;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * With the embedded cluster on ({@code app.cluster.enabled}, the default), the service's
 * migrations and seeder log in as the migration role that the cluster creates:
 * {@code app.db.migration.username} and {@code password} default to the cluster's
 * {@code migration-username} and {@code migration-password}. Set explicitly, even to an
 * empty value (one role), they are left alone; with the cluster off they stay unset
 * unless configured, so that a service pointed at an existing cluster keeps working with
 * one role.
 */
class EmbeddedClusterRoles implements EnvironmentPostProcessor {

	static final String SOURCE = "embeddedClusterRoles";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Binder binder = Binder.get(environment);
		if (!binder.bind("app.cluster.enabled", Boolean.class).orElse(true)
				|| binder.bind("app.db.migration.username", String.class).isBound()) {
			return;
		}
		ClusterProperties cluster = binder.bindOrCreate("app.cluster", ClusterProperties.class);
		environment.getPropertySources()
			.addLast(new MapPropertySource(SOURCE, Map.of("app.db.migration.username", cluster.migrationUsername(),
					"app.db.migration.password", cluster.migrationPassword())));
	}

}
