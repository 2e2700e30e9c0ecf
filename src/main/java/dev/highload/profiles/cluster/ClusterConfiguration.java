package dev.highload.profiles.cluster;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the embedded cluster before any DataSource, unless
 * {@code app.cluster.enabled=false} points the service at an existing cluster.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "app.cluster.enabled", matchIfMissing = true)
class ClusterConfiguration {

	@Bean
	EmbeddedCluster embeddedCluster(ClusterProperties properties) {
		return EmbeddedCluster.acquire(properties);
	}

	@Bean
	static DataSourcesAfterCluster dataSourcesAfterCluster() {
		return new DataSourcesAfterCluster();
	}

	/**
	 * Makes every DataSource bean depend on the cluster, so no pool connects before it
	 * runs.
	 */
	static final class DataSourcesAfterCluster extends AbstractDependsOnBeanFactoryPostProcessor {

		DataSourcesAfterCluster() {
			super(DataSource.class, EmbeddedCluster.class);
		}

	}

}
