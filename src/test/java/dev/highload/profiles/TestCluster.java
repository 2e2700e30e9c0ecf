package dev.highload.profiles;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

import dev.highload.profiles.cluster.EmbeddedCluster;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Which cluster the {@link IntegrationTest}s run on, chosen by the system property
 * {@code it.cluster}: {@code embedded} (the default) or {@code testcontainers}
 * ({@code ./mvnw verify -Dit.cluster=testcontainers}). The Testcontainers cluster is
 * {@link ContainerCluster}: the compose deployment's image, scripts and settings. Without
 * Docker, that choice skips the integration tests with a message instead of failing them.
 */
final class TestCluster {

	static final String PROPERTY = "it.cluster";

	private TestCluster() {
	}

	static boolean containers() {
		String mode = System.getProperty(PROPERTY, "embedded").trim().toLowerCase(Locale.ROOT);
		return switch (mode) {
			case "", "embedded" -> false;
			case "testcontainers" -> true;
			default -> throw new IllegalArgumentException(
					"-D" + PROPERTY + "=" + mode + ": expected embedded or testcontainers");
		};
	}

	/** Skips every integration test when the chosen cluster cannot run here. */
	static final class Condition implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			if (!containers()) {
				return ConditionEvaluationResult.enabled("on the embedded cluster");
			}
			if (!DockerClientFactory.instance().isDockerAvailable()) {
				return ConditionEvaluationResult.disabled(
						"-D" + PROPERTY + "=testcontainers needs a Docker engine, and none is reachable here: skipped");
			}
			return ConditionEvaluationResult.enabled("on the Testcontainers cluster");
		}

	}

	/**
	 * Starts the Testcontainers cluster, when chosen, before the context: turns the
	 * embedded cluster off, points the pools at the containers and, since a service
	 * without the embedded cluster refuses to start without token keys, gives it a random
	 * one.
	 */
	static final class Initializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

		@Override
		public void initialize(ConfigurableApplicationContext context) {
			if (!containers()) {
				return;
			}
			ContainerCluster cluster = ContainerCluster.shared();
			TestPropertyValues
				.of("app.cluster.enabled=false", "app.db.nodes=" + String.join(",", cluster.nodes()),
						"app.db.replicas=" + String.join(",", cluster.replicas()),
						"app.db.database=" + ContainerCluster.DATABASE, "app.db.username=" + ContainerCluster.USERNAME,
						"app.db.password=" + ContainerCluster.APP_PASSWORD,
						"app.db.migration.username=" + ContainerCluster.MIGRATION_USERNAME,
						"app.db.migration.password=" + ContainerCluster.MIGRATION_PASSWORD,
						"app.auth.token-keys=" + randomTokenKey())
				.applyTo(context);
		}

	}

	/** A throw-away token key entry for a service started with the cluster off. */
	static String randomTokenKey() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		return "it:" + Base64.getEncoder().encodeToString(key);
	}

	/** The {@link ClusterNodes} of whichever cluster runs. */
	@TestConfiguration(proxyBeanMethods = false)
	static class NodesConfiguration {

		@Bean
		ClusterNodes clusterNodes(ObjectProvider<EmbeddedCluster> embedded) {
			EmbeddedCluster cluster = embedded.getIfAvailable();
			return (cluster != null) ? cluster::connectAsSuperuser : ContainerCluster.shared();
		}

	}

}
