package dev.highload.profiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The integration tests' cluster as containers ({@code -Dit.cluster=testcontainers}): the
 * postgres image compose would use ({@code POSTGRES_IMAGE}, else the default pinned in
 * docker-compose.yml), started by the same entrypoints, with the same db/scripts and
 * db/postgresql/cluster.conf, so a primary and two replicas streaming with
 * {@code ANY 1 (replica1, replica2)} and {@code remote_apply}. They run on a network of
 * their own whose subnet is the only one pg_hba.conf admits, as in compose; the tests
 * reach them through mapped ports. All three start at once, and the replicas wait for the
 * primary as their script does under compose. One cluster per test JVM, removed when it
 * exits.
 * <p>
 * pg_hba.conf accepts the superuser only from inside a container, and the tests connect
 * through the published ports, from the network: this test cluster alone admits
 * {@code postgres} from the network as well, by a line put first in each node's
 * pg_hba.conf once all three run.
 */
final class ContainerCluster implements ClusterNodes {

	static final String DATABASE = "profiles";

	static final String USERNAME = "profiles";

	static final String APP_PASSWORD = "profiles-test";

	static final String MIGRATION_USERNAME = "profiles_owner";

	static final String MIGRATION_PASSWORD = "profiles-owner-test";

	private static final String SUPERUSER_PASSWORD = "postgres-test";

	private static final String REPLICATION_PASSWORD = "replicator-test";

	private static final int PORT = 5432;

	private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

	private static ContainerCluster shared;

	private final Network network = Network.newNetwork();

	private final Map<String, GenericContainer<?>> nodes = new LinkedHashMap<>();

	private ContainerCluster() {
		DockerImageName image = DockerImageName.parse(composeImage());
		this.nodes.put("primary", primary(image));
		this.nodes.put("replica1", replica(image, "replica1"));
		this.nodes.put("replica2", replica(image, "replica2"));
	}

	/**
	 * The cluster of this JVM, started on first use.
	 * @return the running cluster
	 */
	static synchronized ContainerCluster shared() {
		if (shared == null) {
			ContainerCluster cluster = new ContainerCluster();
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "container-cluster-stop"));
			cluster.start();
			shared = cluster;
		}
		return shared;
	}

	/** Every node as host:port reachable from this JVM, primary first. */
	List<String> nodes() {
		return this.nodes.values().stream().map(ContainerCluster::address).toList();
	}

	/** The replicas as host:port reachable from this JVM. */
	List<String> replicas() {
		return List.of(address(this.nodes.get("replica1")), address(this.nodes.get("replica2")));
	}

	@Override
	public Connection connectAsSuperuser(String node, String database) throws SQLException {
		GenericContainer<?> container = this.nodes.get(node);
		if (container == null) {
			throw new IllegalArgumentException("No node named " + node);
		}
		Properties properties = new Properties();
		properties.setProperty("user", "postgres");
		properties.setProperty("password", SUPERUSER_PASSWORD);
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "60");
		return DriverManager.getConnection("jdbc:postgresql://" + address(container) + "/" + database, properties);
	}

	private void start() {
		try {
			Startables.deepStart(this.nodes.values()).join();
			String subnet = subnet();
			for (GenericContainer<?> node : this.nodes.values()) {
				admitTheSuperuserFrom(node, subnet);
			}
		}
		catch (RuntimeException ex) {
			stop();
			throw ex;
		}
	}

	private static void admitTheSuperuserFrom(GenericContainer<?> node, String subnet) {
		try {
			Container.ExecResult result = node.execInContainerWithUser("postgres", "bash", "-c",
					"sed -i '1i host all postgres " + subnet + " scram-sha-256' \"$PGDATA/pg_hba.conf\""
							+ " && psql -XAtq -U postgres -d postgres -c 'SELECT pg_reload_conf()'");
			if (result.getExitCode() != 0) {
				throw new IllegalStateException("Could not admit the tests' superuser connections on "
						+ node.getNetworkAliases() + ": " + result.getStderr());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private void stop() {
		this.nodes.values().forEach(GenericContainer::stop);
		this.network.close();
	}

	private GenericContainer<?> primary(DockerImageName image) {
		return node(image, "primary", "primary").withEnv("POSTGRES_PASSWORD", SUPERUSER_PASSWORD)
			.withEnv("APP_DB_DATABASE", DATABASE)
			.withEnv("APP_DB_USERNAME", USERNAME)
			.withEnv("APP_DB_PASSWORD", APP_PASSWORD)
			.withEnv("APP_DB_MIGRATION_USERNAME", MIGRATION_USERNAME)
			.withEnv("APP_DB_MIGRATION_PASSWORD", MIGRATION_PASSWORD)
			.withEnv("DB_ALLOWED_CIDR", subnet())
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/primary.sh", 0755), "/db/scripts/primary.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/init-primary.sh", 0755),
					"/db/scripts/init-primary.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/monitoring.sh", 0755),
					"/db/scripts/monitoring.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/monitoring.sql", 0644),
					"/db/scripts/monitoring.sql")
			.withCreateContainerCmdModifier((command) -> command.withEntrypoint("bash", "/db/scripts/primary.sh"))
			.withCommand("postgres", "-c", "cluster_name=primary", "-c", "shared_buffers=64MB");
	}

	private GenericContainer<?> replica(DockerImageName image, String name) {
		return node(image, name, "replica").withEnv("REPLICA_NAME", name)
			.withEnv("PRIMARY_HOST", "primary")
			.withCreateContainerCmdModifier((command) -> command.withEntrypoint("bash", "/db/scripts/replica.sh"))
			.withCommand("-c", "shared_buffers=64MB");
	}

	private GenericContainer<?> node(DockerImageName image, String alias, String role) {
		return new GenericContainer<>(image).withNetwork(this.network)
			.withNetworkAliases(alias)
			.withExposedPorts(PORT)
			.withSharedMemorySize(256L * 1024 * 1024)
			.withEnv("REPLICATION_PASSWORD", REPLICATION_PASSWORD)
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/replica.sh", 0755), "/db/scripts/replica.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/file-env.sh", 0644),
					"/db/scripts/file-env.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/derive-access.sh", 0755),
					"/db/scripts/derive-access.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/scripts/healthcheck.sh", 0755),
					"/db/scripts/healthcheck.sh")
			.withCopyFileToContainer(MountableFile.forHostPath("db/postgresql/cluster.conf", 0644),
					"/etc/postgresql/cluster.conf")
			.waitingFor(Wait.forSuccessfulCommand("bash /db/scripts/healthcheck.sh " + role)
				.withStartupTimeout(START_TIMEOUT));
	}

	/** The network's subnet, which pg_hba.conf admits, as compose's fixed subnet is. */
	private String subnet() {
		return DockerClientFactory.instance()
			.client()
			.inspectNetworkCmd()
			.withNetworkId(this.network.getId())
			.exec()
			.getIpam()
			.getConfig()
			.stream()
			.map((config) -> config.getSubnet())
			.filter((subnet) -> subnet != null && subnet.contains("."))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The test network has no IPv4 subnet"));
	}

	private static String address(GenericContainer<?> container) {
		return container.getHost() + ":" + container.getMappedPort(PORT);
	}

	/**
	 * The postgres image compose would use: {@code POSTGRES_IMAGE} from the environment
	 * (docker/local-images.env names a stand-in), else the default docker-compose.yml
	 * pins, so the two cannot drift apart.
	 */
	static String composeImage() {
		String chosen = System.getenv("POSTGRES_IMAGE");
		if (chosen != null && !chosen.isBlank()) {
			return chosen;
		}
		try {
			Matcher matcher = Pattern.compile("(?m)^\\s*image:\\s*\\$\\{POSTGRES_IMAGE:-(\\S+)}\\s*$")
				.matcher(Files.readString(Path.of("docker-compose.yml")));
			if (!matcher.find()) {
				throw new IllegalStateException("No postgres image in docker-compose.yml");
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
