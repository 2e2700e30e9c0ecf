package dev.highload.profiles.cluster;

import java.nio.file.Path;
import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Points the service's pools at the embedded cluster's Unix-domain sockets: a default for
 * {@code app.db.socket-directory}, added last (any setting of it wins) and only while the
 * embedded cluster is on. The nodes listen on TCP as well, for psql, pgbench and the
 * replication connections.
 */
class ClusterSocketDirectory implements EnvironmentPostProcessor {

	static final String PROPERTY = "app.db.socket-directory";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		Binder binder = Binder.get(environment);
		boolean enabled = binder.bind("app.cluster.enabled", Boolean.class).orElse(true);
		if (!enabled || environment.containsProperty(PROPERTY)) {
			return;
		}
		Path baseDir = binder.bind("app.cluster.base-dir", Bindable.of(Path.class)).orElse(Path.of(".data"));
		Path sockets = EmbeddedCluster.socketDirectory(baseDir);
		if (sockets != null) {
			environment.getPropertySources()
				.addLast(new MapPropertySource("embeddedClusterSockets", Map.of(PROPERTY, sockets.toString())));
		}
	}

}
