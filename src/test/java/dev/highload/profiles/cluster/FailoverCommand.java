package dev.highload.profiles.cluster;

import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code --app.failover}: fails the embedded cluster over to its most advanced standby
 * ({@link Failover}) and exits, beside a running service. It reads only the cluster's
 * settings (base directory, ports, passwords) from the usual configuration, so the same
 * {@code APP_CLUSTER_...} variables and arguments that the service got point it at the
 * same cluster. It starts no node, no pool and no web server.
 * <p>
 * It is the one command that changes nodes another process owns
 * ({@link ClusterOwnership}): failing over a running service's cluster is what it is for.
 * When no process owns the cluster (its owner crashed and left the nodes running), it
 * holds the cluster itself while it works, so that no start can race it.
 */
@EnableConfigurationProperties(ClusterProperties.class)
public final class FailoverCommand {

	/** The argument that selects this command instead of the service. */
	private static final String ARGUMENT = "--app.failover";

	/**
	 * Whether a command-line argument selects this command.
	 * @param argument one argument
	 * @return true for {@code --app.failover} and {@code --app.failover=true}
	 */
	public static boolean selects(String argument) {
		return argument.equals(ARGUMENT) || argument.equals(ARGUMENT + "=true");
	}

	/**
	 * Runs the failover and returns the process exit code: 0 done, 1 failed.
	 * @param args the command line, passed on to Spring's configuration
	 * @return the exit code
	 */
	public static int run(String[] args) {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(FailoverCommand.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(args)) {
			System.out.print(failover(context.getBean(ClusterProperties.class)));
			return 0;
		}
		catch (Exception ex) {
			System.err.println("Failover failed: " + ex.getMessage());
			return 1;
		}
	}

	/**
	 * For tests and tools that run next to the cluster: the failover of the cluster with
	 * these settings.
	 * @param properties the cluster's settings
	 * @return the report the command prints
	 */
	public static String failover(ClusterProperties properties) throws Exception {
		EmbeddedCluster cluster = new EmbeddedCluster(properties);
		Path baseDir = properties.baseDir();
		if (ClusterOwnership.heldHere(baseDir)) {
			return "Cluster run by this process.\n" + run(cluster);
		}
		ClusterOwnership.Claim claim = ClusterOwnership.claim(baseDir, cluster.ports());
		if (!claim.owned()) {
			return "Cluster run by " + claim.owner().describe() + "; failed over beside it.\n" + run(cluster);
		}
		try (ClusterOwnership ownership = claim.ownership()) {
			return "No process owned the cluster; held by this command while it ran.\n" + run(cluster);
		}
	}

	private static String run(EmbeddedCluster cluster) throws Exception {
		return new Failover(cluster, Duration.ofSeconds(30)).run().describe();
	}

}
