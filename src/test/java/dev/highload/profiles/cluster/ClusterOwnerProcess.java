package dev.highload.profiles.cluster;

import java.time.Duration;

/**
 * A separate JVM that owns a test cluster until it is killed: the other process of the
 * ownership tests. Arguments: the directory under {@code target/} and the primary's port.
 * It prints {@code READY <pid>} once the nodes run, and gives up by itself after ten
 * minutes if nobody kills it.
 */
final class ClusterOwnerProcess {

	static final String READY = "READY ";

	private ClusterOwnerProcess() {
	}

	public static void main(String[] args) throws Exception {
		EmbeddedCluster cluster = new EmbeddedCluster(OwnCluster.properties(args[0], Integer.parseInt(args[1])));
		cluster.start();
		try {
			System.out.println(READY + ProcessHandle.current().pid());
			System.out.flush();
			Thread.sleep(Duration.ofMinutes(10).toMillis());
		}
		finally {
			cluster.close();
		}
	}

}
