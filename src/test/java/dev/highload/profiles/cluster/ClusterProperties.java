package dev.highload.profiles.cluster;

import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the embedded local cluster: one primary and two synchronous streaming
 * replicas started from the PostgreSQL binaries shipped on Maven Central.
 *
 * @param enabled start the embedded cluster (turn off to use an existing cluster)
 * @param baseDir where binaries, data directories and node logs live, across restarts
 * @param primaryPort port of the node named {@code primary}
 * @param replica1Port port of the node named {@code replica1}
 * @param replica2Port port of the node named {@code replica2}
 * @param database the application's database, owned by {@link #migrationUsername}
 * @param username the service's runtime role: it may connect, read and insert (the
 * service's {@code app.db.username} must name it)
 * @param password its password
 * @param migrationUsername the migration role, owner of the database and its schema;
 * unset, {@code <username>_owner}. While the embedded cluster runs, it is the service's
 * {@code app.db.migration.username} unless that is set ({@link EmbeddedClusterDefaults})
 * @param migrationPassword its password; unset, the same as its name, like the other
 * local-only defaults
 * @param superuserPassword password of the {@code postgres} superuser
 * @param replicationPassword password of the {@code replicator} role used for streaming
 * @param sharedBuffers {@code shared_buffers} of every node
 * @param startTimeout how long a node may take to accept connections
 * @param synchronousReplication a commit waits until one standby has applied it
 * ({@code ANY 1} over the other nodes, {@code remote_apply}); {@code false} makes
 * replication asynchronous, which loses acknowledged writes in a failover and exists only
 * as the negative control of the lost-write check
 * @param joinRunning when another process already runs this base directory's nodes, use
 * them instead of refusing to start; this process then starts, stops and re-initialises
 * none of them. The seeding command ({@code --app.seed.users}) turns it on, so it can
 * load into the cluster of a running service
 */
@ConfigurationProperties("app.cluster")
public record ClusterProperties(@DefaultValue("true") boolean enabled, @DefaultValue(".data") Path baseDir,
		@DefaultValue("15432") int primaryPort, @DefaultValue("15433") int replica1Port,
		@DefaultValue("15434") int replica2Port, @DefaultValue("profiles") String database,
		@DefaultValue("profiles") String username, @DefaultValue("profiles") String password,
		@DefaultValue("postgres") String superuserPassword, @DefaultValue("replicator") String replicationPassword,
		@DefaultValue("256MB") String sharedBuffers, @DefaultValue("120s") Duration startTimeout,
		@DefaultValue("true") boolean synchronousReplication, @DefaultValue("false") boolean joinRunning,
		String migrationUsername, String migrationPassword) {

	public ClusterProperties {
		if (migrationUsername == null || migrationUsername.isBlank()) {
			migrationUsername = username + "_owner";
		}
		if (migrationPassword == null) {
			migrationPassword = migrationUsername;
		}
	}

}
