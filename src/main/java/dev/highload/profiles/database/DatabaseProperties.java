package dev.highload.profiles.database;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the service's two connection pools connect. The defaults name a cluster on this
 * machine's ports 15432-15434, the local run's; a deployment names its own nodes.
 *
 * @param nodes every node as {@code host:port}; the write pool connects to whichever is
 * the primary, so it follows a promotion without a restart
 * @param replicas the nodes taken for replicas until the router's first probe of each has
 * said which role it has ({@link ReadRouter}); nodes listed here and not in {@code nodes}
 * are read from too
 * @param database database name
 * @param username the runtime role, the one both pools log in as: it may read and insert
 * the service's tables and nothing more where the database was set up by this project
 * (docs/operations.md, "Database roles")
 * @param password its password
 * @param migration the role that owns the schema, which Flyway and the seeder connect as;
 * unset, they use the runtime role, which must then own the schema (one role, as on an
 * existing cluster where nobody made two)
 * @param readFromReplicas send reads to the replicas; {@code false} sends everything to
 * the primary through the write pool (for comparisons)
 * @param readYourWritesWait how long a read that needs a position no replica is known to
 * have replayed asks the replicas again before it goes to the primary
 * @param nodeCheckInterval how often the router probes each node for its role and
 * position (and the primary's position is sampled, which decides when a miss on a replica
 * is final)
 * @param primaryPositionSpacing the least time between two fetches of the primary's
 * position on demand: however many reads need a fresh one, the primary answers at most
 * one such query per spacing
 * @param writeTimeout how long a commit may wait for a synchronous standby before it is
 * cancelled and answered 503 "Outcome unknown" (the row may exist on the primary); while
 * no replica is connected, PostgreSQL would let it wait forever
 * @param migrations what the service does with the migrations at start: {@code apply}
 * (the default) runs those not applied yet, as the schema's owner; {@code validate} only
 * checks, as the runtime role, that every one of them has been applied and none changed,
 * and refuses to start otherwise. A deployment whose migrations run in a step of their
 * own ({@code --app.migrate}, {@link MigrateCommand}) validates, so that the running
 * service needs no owner's password
 * @param ssl TLS to the nodes: pgjdbc's {@code sslmode} and {@code sslrootcert}
 * @param writePool the primary's pool
 * @param readPool each node's read pool (one per node, so that a read can be sent to the
 * node it needs); {@code application.yml} gives it 8 connections, a 2 s socket timeout,
 * so that a read on a replica that answers nothing fails over quickly, and a 1.5 s
 * statement timeout below it, so that a read that is merely slow is cancelled by the
 * server rather than cut off by the socket timeout and repeated elsewhere
 * @param routing what an address in {@code replicas} stands for: one node
 * ({@code per-node}, the default) or a balanced endpoint whose connections reach
 * different replicas ({@code balanced}; {@link Routing})
 */
@ConfigurationProperties("app.db")
public record DatabaseProperties(@DefaultValue( {
		"127.0.0.1:15432", "127.0.0.1:15433", "127.0.0.1:15434" }) List<String> nodes,
		@DefaultValue({ "127.0.0.1:15433", "127.0.0.1:15434" }) List<String> replicas,
		@DefaultValue("profiles") String database, @DefaultValue("profiles") String username,
		@DefaultValue("profiles") String password, @DefaultValue("true") boolean readFromReplicas,
		@DefaultValue("50ms") Duration readYourWritesWait, @DefaultValue("1s") Duration nodeCheckInterval,
		@DefaultValue("5ms") Duration primaryPositionSpacing, @DefaultValue("5s") Duration writeTimeout,
		@DefaultValue("apply") Migrations migrations, @DefaultValue Ssl ssl, @DefaultValue Pool writePool,
		@DefaultValue Pool readPool, @DefaultValue Migration migration, @DefaultValue("per-node") Routing routing){

	/** The role that migrations and the seeder log in as: the migration role if set. */
	public String migrationUsername() {
		return this.migration.separate() ? this.migration.username() : this.username;
	}

	/** The password of {@link #migrationUsername()}. */
	public String migrationPassword() {
		return this.migration.separate() ? this.migration.password() : this.password;
	}

	/**
	 * The one place a JDBC URL is made: every connection of the service, pooled or not.
	 * @param hosts {@code host:port} of the nodes to try, in order
	 * @param targetServerType pgjdbc's: {@code primary}, or {@code any} for one node
	 * @param connectTimeout TCP connect timeout of one node, in whole seconds
	 * @param socketTimeout how long one network read may block, in whole seconds; zero
	 * waits forever
	 * @param applicationName what {@code pg_stat_activity} shows for the connection
	 * @return the URL
	 */
	public String jdbcUrl(List<String> hosts, String targetServerType, Duration connectTimeout, Duration socketTimeout,
			String applicationName) {
		return "jdbc:postgresql://" + String.join(",", hosts) + "/" + this.database + "?targetServerType="
				+ targetServerType + "&connectTimeout=" + connectTimeout.toSeconds() + "&socketTimeout="
				+ socketTimeout.toSeconds() + "&tcpKeepAlive=true&ApplicationName=" + applicationName
				+ this.ssl.urlParameters();
	}

	/**
	 * What an address in {@code app.db.replicas} stands for, which decides what the read
	 * router may believe of a read's connection (routing.ReadRouter).
	 */
	public enum Routing {

		/**
		 * Each address is one node: every connection of its pool reaches the same server,
		 * so a position one read saw there holds for the next read on that pool.
		 */
		PER_NODE,

		/**
		 * Each replica address is an endpoint that balances connections over several
		 * replicas, as a Kubernetes Service such as CloudNativePG's {@code <cluster>-ro}
		 * does: two connections of one pool may reach two replicas at different
		 * positions. Nothing learned on one connection is taken to hold for another;
		 * every answer is checked against the position it needed, and one from behind is
		 * read again on the primary.
		 */
		BALANCED

	}

	/** What the service does with the migrations at start. */
	public enum Migrations {

		/** Applies those not applied yet, as the schema's owner. */
		APPLY,

		/**
		 * Checks that all are applied, as the runtime role; refuses to start otherwise.
		 */
		VALIDATE

	}

	/**
	 * TLS to the nodes, as pgjdbc takes it. Unset, pgjdbc's default ({@code prefer}:
	 * encrypted where the server offers it, unverified): right for the local run on
	 * loopback, wrong across a network, where {@code verify-full} with the CA of the
	 * nodes' certificates is what a deployment sets (docker-compose.ha.yml does).
	 *
	 * @param mode pgjdbc's {@code sslmode}: {@code disable}, {@code allow},
	 * {@code prefer}, {@code require}, {@code verify-ca} or {@code verify-full}
	 * @param rootCert the PEM file of the certificate authority that signed the nodes'
	 * certificates (pgjdbc's {@code sslrootcert}), for {@code verify-ca} and
	 * {@code verify-full}
	 */
	public record Ssl(String mode, String rootCert) {

		private static final Set<String> MODES = Set.of("disable", "allow", "prefer", "require", "verify-ca",
				"verify-full");

		public Ssl {
			if (mode != null && !mode.isBlank() && !MODES.contains(mode)) {
				throw new IllegalArgumentException(
						"app.db.ssl.mode must be one of " + new TreeSet<>(MODES) + ", was '" + mode + "'");
			}
			if (mode != null && mode.startsWith("verify") && (rootCert == null || rootCert.isBlank())) {
				throw new IllegalArgumentException("app.db.ssl.mode=" + mode
						+ " checks the nodes' certificates: app.db.ssl.root-cert must name the PEM file of their CA");
			}
		}

		String urlParameters() {
			StringBuilder parameters = new StringBuilder();
			if (this.mode != null && !this.mode.isBlank()) {
				parameters.append("&sslmode=").append(this.mode);
			}
			if (this.rootCert != null && !this.rootCert.isBlank()) {
				parameters.append("&sslrootcert=").append(URLEncoder.encode(this.rootCert, StandardCharsets.UTF_8));
			}
			return parameters.toString();
		}

	}

	/**
	 * The migration role. As environment variables {@code APP_DB_MIGRATION_USERNAME} and
	 * {@code APP_DB_MIGRATION_PASSWORD}, the names db/scripts give them too.
	 *
	 * @param username owner of the schema's objects; unset (or empty), the runtime role
	 * @param password its password
	 */
	public record Migration(String username, String password) {

		boolean separate() {
			return this.username != null && !this.username.isBlank();
		}

	}

	/**
	 * Refuses timeouts that would let a slow statement outlive its socket: the service
	 * does not start with them.
	 */
	public DatabaseProperties {
		if (routing == Routing.BALANCED && (replicas == null || replicas.isEmpty() || !readFromReplicas)) {
			throw new IllegalArgumentException("app.db.routing=balanced needs the balanced replica endpoint in "
					+ "app.db.replicas (e.g. <cluster>-ro:5432) and app.db.read-from-replicas=true");
		}
		if (writePool != null) {
			writePool.validate("app.db.write-pool");
		}
		if (readPool != null) {
			readPool.validate("app.db.read-pool");
		}
	}

	/**
	 * One HikariCP pool.
	 *
	 * @param maximumSize connections at most
	 * @param connectionTimeout how long a caller waits for a connection
	 * @param connectTimeout TCP connect timeout of one node
	 * @param socketTimeout how long one network read may block, in whole seconds (pgjdbc
	 * drops a fraction); zero waits forever. A statement that outlasts it fails as a
	 * broken connection (08006): the connection is evicted, the statement keeps running
	 * on the server, and a read is repeated on another node
	 * @param statementTimeout PostgreSQL's {@code statement_timeout} on every connection
	 * of the pool, sent in the startup packet (pgjdbc's {@code options}), so it costs no
	 * round trip. The server cancels a statement that runs longer (SQLState 57014): the
	 * connection stays usable, nothing is retried, and the client gets 503 with
	 * Retry-After. Must be positive and below the socket timeout, so that the server's
	 * cancel comes first. The default, 10 s, is the write pool's (below its 30 s socket
	 * timeout); {@code application.yml} gives the read pool 1.5 s. Flyway and the seeder
	 * connect outside the pools ({@link SchemaOwnerConnections}), without it. A commit's
	 * wait for a synchronous standby is not a statement for PostgreSQL; the write timeout
	 * bounds it
	 * @param maxLifetime when a connection is retired
	 */
	public record Pool(@DefaultValue("16") int maximumSize, @DefaultValue("3s") Duration connectionTimeout,
			@DefaultValue("3s") Duration connectTimeout, @DefaultValue("30s") Duration socketTimeout,
			@DefaultValue("10s") Duration statementTimeout, @DefaultValue("30m") Duration maxLifetime) {

		/**
		 * Throws if the statement timeout is not positive or not below the socket timeout
		 * as pgjdbc applies it (whole seconds; zero is none).
		 * @param prefix the pool's property prefix, for the message
		 */
		void validate(String prefix) {
			if (this.statementTimeout.toMillis() < 1) {
				throw new IllegalArgumentException(prefix + ".statement-timeout must be at least 1ms, was "
						+ this.statementTimeout.toMillis() + "ms");
			}
			long socketMillis = this.socketTimeout.toSeconds() * 1000;
			if (socketMillis > 0 && this.statementTimeout.toMillis() >= socketMillis) {
				throw new IllegalArgumentException(prefix + ".statement-timeout (" + this.statementTimeout.toMillis()
						+ "ms) must be below " + prefix + ".socket-timeout (" + socketMillis
						+ "ms, applied in whole seconds): a statement that outlives the socket timeout fails as a "
						+ "broken connection and keeps running on the server, instead of being cancelled there");
			}
		}

	}

}
