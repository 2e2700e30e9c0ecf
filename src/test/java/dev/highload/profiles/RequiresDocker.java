package dev.highload.profiles;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Locale;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class of the Docker deployments: it runs where a Docker engine answers and
 * {@code docker compose} (v2) is installed. Elsewhere it is skipped with the reason,
 * unless Docker is required ({@code IT_DOCKER=required} in the environment or
 * {@code -Dit.docker=required}; .ci/run sets it after starting the engine): then it
 * fails, so that a run that was meant to prove the deployments cannot pass without them.
 * <p>
 * The engine is asked through the {@code docker} CLI, the same way the tests drive it,
 * and not through Testcontainers, whose start-up check pulls an image no registry may
 * serve.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresDocker.Condition.class)
@interface RequiresDocker {

	final class Condition implements ExecutionCondition {

		private static volatile String missing;

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			String reason = missing();
			if (reason.isEmpty()) {
				return ConditionEvaluationResult.enabled("a Docker engine and docker compose answer");
			}
			if (required()) {
				throw new IllegalStateException("Docker is required here (IT_DOCKER / -Dit.docker=required) but "
						+ reason + ": start an engine (.ci/run does), then docker/local-images.sh installs Compose v2");
			}
			return ConditionEvaluationResult
				.disabled(reason + ": skipped (start an engine, then docker/local-images.sh)");
		}

		static boolean required() {
			String value = System.getProperty("it.docker", System.getenv().getOrDefault("IT_DOCKER", ""));
			return "required".equals(value.trim().toLowerCase(Locale.ROOT));
		}

		/** Why Docker cannot be used here, or empty; asked once per test JVM. */
		private static String missing() {
			if (missing == null) {
				missing = probe();
			}
			return missing;
		}

		private static String probe() {
			try {
				if (ComposeProject.run(Duration.ofSeconds(30), List.of("docker", "info"), Map.of()).exitCode() != 0) {
					return "no Docker engine answers `docker info`";
				}
				if (!ComposeProject.available()) {
					return "`docker compose` (Compose v2) is not installed";
				}
				return "";
			}
			catch (IOException ex) {
				return "the docker CLI cannot be run (" + ex.getMessage() + ")";
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return "interrupted while asking the Docker engine";
			}
		}

	}

}
