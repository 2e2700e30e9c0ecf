package dev.highload.profiles.cluster;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * What the service needs to run on the embedded cluster, so that the production
 * configuration names no cluster. While the cluster is on ({@code app.cluster.enabled},
 * the default on the test classpath), and only where nothing else sets them:
 * <ul>
 * <li>the pools connect to the cluster's ports ({@code app.db.nodes},
 * {@code app.db.replicas});</li>
 * <li>migrations and the seeder log in as the migration role the cluster creates
 * ({@code app.db.migration.username} and {@code password}); set explicitly, even to an
 * empty value (one role), they are left alone;</li>
 * <li>without usable {@code app.auth.token-keys}, the service signs with a random key of
 * its own, so tokens stop working at restart (a deployment is refused without keys);</li>
 * <li>the seeding command ({@code app.seed.users}) joins the cluster of a service that
 * already runs ({@code app.cluster.join-running}) instead of refusing to start.</li>
 * </ul>
 */
class EmbeddedClusterDefaults implements EnvironmentPostProcessor {

	static final String SOURCE = "embeddedClusterDefaults";

	static final String THROW_AWAY_KEY_ID = "ephemeral";

	private final Log log;

	EmbeddedClusterDefaults(DeferredLogFactory logs) {
		this.log = logs.getLog(EmbeddedClusterDefaults.class);
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Binder binder = Binder.get(environment);
		if (!binder.bind("app.cluster.enabled", Boolean.class).orElse(true)) {
			return;
		}
		ClusterProperties cluster = binder.bindOrCreate("app.cluster", ClusterProperties.class);
		Map<String, Object> defaults = new HashMap<>();
		defaults.put("app.db.nodes", String.join(",", address(cluster.primaryPort()), address(cluster.replica1Port()),
				address(cluster.replica2Port())));
		defaults.put("app.db.replicas",
				String.join(",", address(cluster.replica1Port()), address(cluster.replica2Port())));
		if (!binder.bind("app.db.migration.username", String.class).isBound()) {
			defaults.put("app.db.migration.username", cluster.migrationUsername());
			defaults.put("app.db.migration.password", cluster.migrationPassword());
		}
		if (binder.bind("app.seed.users", Integer.class).isBound()) {
			defaults.put("app.cluster.join-running", "true");
		}
		environment.getPropertySources().addLast(new MapPropertySource(SOURCE, defaults));
		List<String> keys = binder.bind("app.auth.token-keys", Bindable.listOf(String.class)).orElse(List.of());
		if (keys.stream().allMatch(String::isBlank)) {
			this.log.warn("app.auth.token-keys is not set: using a random key, so tokens stop working at restart "
					+ "and no other instance accepts them");
			// First, so that an empty value set elsewhere does not hide it.
			environment.getPropertySources()
				.addFirst(new MapPropertySource(SOURCE + "TokenKey",
						Map.of("app.auth.token-keys", THROW_AWAY_KEY_ID + ":" + randomKey())));
		}
	}

	private static String address(int port) {
		return "127.0.0.1:" + port;
	}

	private static String randomKey() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		return Base64.getEncoder().encodeToString(key);
	}

}
