package dev.highload.profiles.cluster;

import javax.sql.DataSource;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the embedded cluster before any DataSource wherever the test classes are on the
 * classpath: in the integration tests and in {@code LocalProfilesApplication}, where
 * component scanning from {@code ProfilesApplication} finds this class (the production
 * jar has none). {@code app.cluster.enabled=false} leaves it off, for tests on another
 * cluster. With {@code app.cluster.join-running=true} (the seeding command) a cluster
 * that another process runs is used as it is; otherwise such a cluster makes this process
 * fail at start-up with a message naming that process.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "app.cluster.enabled", matchIfMissing = true)
class ClusterConfiguration {

	@Bean
	EmbeddedCluster embeddedCluster(ClusterProperties properties) {
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
