package dev.highload.profiles.cluster;

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
 */
@EnableConfigurationProperties(ClusterProperties.class)
public final class FailoverCommand {

	/** The argument that selects this command instead of the service. */
	public static final String ARGUMENT = "--app.failover";

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
			ClusterProperties properties = context.getBean(ClusterProperties.class);
			EmbeddedCluster cluster = new EmbeddedCluster(properties);
			Failover.Result result = new Failover(cluster, Duration.ofSeconds(30)).run();
			System.out.print(result.describe());
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
		return new Failover(new EmbeddedCluster(properties), Duration.ofSeconds(30)).run().describe();
	}

}
