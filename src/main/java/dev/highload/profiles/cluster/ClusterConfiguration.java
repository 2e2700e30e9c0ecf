package dev.highload.profiles.cluster;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the embedded cluster before any DataSource, unless
 * {@code app.cluster.enabled=false} points the service at an existing cluster. With
 * {@code app.cluster.join-running=true} (the seeding command) a cluster that another
 * process runs is used as it is; otherwise it makes this process fail at start-up with a
 * message naming that process.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "app.cluster.enabled", matchIfMissing = true)
class ClusterConfiguration {

	@Bean
	EmbeddedCluster embeddedCluster(ClusterProperties properties) {
		// The production jar leaves out the binaries and commons-compress;
		// PostgresBinaries
		// cannot even load there.
		if (ClusterConfiguration.class.getClassLoader().getResource(PostgresBinaries.ARCHIVE) == null) {
			throw new IllegalStateException("This jar carries no embedded cluster: the production jar leaves out its "
					+ "PostgreSQL binaries. Point the service at a cluster (APP_CLUSTER_ENABLED=false and APP_DB_NODES, "
					+ "APP_DB_REPLICAS, ...), or run the embedded cluster with ./mvnw spring-boot:run or the "
					+ "user-profiles-*-local.jar");
		}
		return properties.joinRunning() ? EmbeddedCluster.acquireOrJoin(properties)
				: EmbeddedCluster.acquire(properties);
	}

	@Bean
	static DataSourcesAfterCluster dataSourcesAfterCluster() {
		return new DataSourcesAfterCluster();
	}

	/**
	 * Makes every DataSource bean depend on the cluster: no pool connects before it runs.
	 */
	static final class DataSourcesAfterCluster extends AbstractDependsOnBeanFactoryPostProcessor {

		DataSourcesAfterCluster() {
			super(DataSource.class, EmbeddedCluster.class);
		}

	}

}
