package dev.highload.profiles.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings for a cluster that a test class starts for itself (it kills or restarts nodes,
 * so it cannot use the shared test cluster): its own directory under {@code target/} and
 * three consecutive ports, which must stay below Linux's ephemeral range.
 */
final class OwnCluster {

	private OwnCluster() {
	}

	static ClusterProperties properties(String directory, int primaryPort) {
		return new ClusterProperties(true, Path.of("target", directory), primaryPort, primaryPort + 1, primaryPort + 2,
				"profiles", "profiles", "profiles", "postgres", "replicator", "32MB", Duration.ofSeconds(120), true,
				false, null, null);
	}

	/** Deletes the nodes' data, so that a run starts from nothing. */
	static void deleteNodes(ClusterProperties properties) throws IOException {
		FileTrees.delete(properties.baseDir().resolve("cluster"));
	}

}
