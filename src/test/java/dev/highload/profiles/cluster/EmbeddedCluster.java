package dev.highload.profiles.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real 3-node PostgreSQL cluster on this machine: {@code primary} and the streaming
 * replicas {@code replica1} and {@code replica2}, with
 * {@code synchronous_standby_names = 'ANY 1 (replica1, replica2)'} and
 * {@code synchronous_commit = remote_apply}.
 * <p>
 * The first start runs initdb for the primary, creates the roles, the database and one
 * replication slot per replica, shuts the primary down cleanly and clones its data
 * directory for each replica. Later starts reuse the data directories. The primary is
 * whichever node has no standby.signal, so the roles survive a {@link Failover}; a node
 * that the failover fenced is re-cloned from the current primary at the next start and
 * rejoins as its standby. One cluster per base directory is shared by everything in the
 * JVM that {@link #acquire acquires} it, and stops when the last holder closes it.
 * <p>
 * One process owns a base directory's nodes ({@link ClusterOwnership}, an
 * operating-system lock that dies with its process). Only the owner starts, stops,
 * re-clones or re-initialises them; a crashed owner's nodes are taken over by the next
 * owner. Another process either fails with a message naming the owner ({@link #acquire})
 * or, to seed into a running cluster, {@link #acquireOrJoin joins} it: it uses the nodes
 * and never stops them.
 */
public final class EmbeddedCluster implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(EmbeddedCluster.class);

	static final String PRIMARY = "primary";

	static final String REPLICA1 = "replica1";

	static final String REPLICA2 = "replica2";

	/** Written once a bootstrap has completed; without it a bootstrap starts over. */
	private static final String BOOTSTRAPPED = "bootstrapped";

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

	private static final Map<Path, EmbeddedCluster> running = new HashMap<>();

	private final ClusterProperties properties;

	private final Path clusterDir;

	private final List<PostgresNode> nodes;

	private int holders;

	/** This process's hold on the nodes, while it runs them; null otherwise. */
	private ClusterOwnership ownership;

	/**
	 * The process that runs the nodes, when this one only {@link #acquireOrJoin joined}.
	 */
	private ClusterOwnership.Owner joinedOwner;

	EmbeddedCluster(ClusterProperties properties) {
		this.properties = properties;
		Path baseDir = properties.baseDir().toAbsolutePath().normalize();
		this.clusterDir = baseDir.resolve("cluster");
		PostgresBinaries binaries = PostgresBinaries.unpack(baseDir);
		this.nodes = List.of(node(PRIMARY, properties.primaryPort(), binaries),
				node(REPLICA1, properties.replica1Port(), binaries),
				node(REPLICA2, properties.replica2Port(), binaries));
	}

	private PostgresNode node(String name, int port, PostgresBinaries binaries) {
		return new PostgresNode(name, this.clusterDir.resolve(name), port, binaries);
	}

	/**
	 * Starts the cluster of the given base directory, or shares it if this JVM already
	 * runs it.
	 * @param properties the cluster's settings
	 * @return the running cluster; close it when done
	 * @throws ClusterOwnedException if another process owns the cluster
	 */
	static EmbeddedCluster acquire(ClusterProperties properties) {
		return acquire(properties, false);
	}

	/**
	 * Like {@link #acquire}, but when another process owns the cluster, uses its running
	 * nodes instead of failing: nothing is started, stopped or re-initialised, and
	 * closing leaves the nodes to their owner. For work beside a running service, such as
	 * seeding.
	 * @param properties the cluster's settings
	 * @return the running cluster; close it when done
	 * @throws ClusterOwnedException if another process owns the cluster but its nodes do
	 * not answer on the configured ports
	 */
	static EmbeddedCluster acquireOrJoin(ClusterProperties properties) {
		return acquire(properties, true);
	}

	private static synchronized EmbeddedCluster acquire(ClusterProperties properties, boolean join) {
		Path key = properties.baseDir().toAbsolutePath().normalize();
		EmbeddedCluster cluster = running.get(key);
		if (cluster == null) {
			cluster = new EmbeddedCluster(properties);
			cluster.start(join);
			running.put(key, cluster);
		}
		cluster.holders++;
		return cluster;
	}

	@Override
	public void close() {
		synchronized (EmbeddedCluster.class) {
			if (--this.holders > 0) {
				return;
			}
			running.values().remove(this);
		}
		stop();
	}

	/**
	 * The process that runs the nodes when this one joined them, empty when this process
	 * runs them itself.
	 */
	Optional<String> joinedOwner() {
		return Optional.ofNullable(this.joinedOwner).map(ClusterOwnership.Owner::describe);
	}

	/** Node name to port, primary first. */
	public Map<String, Integer> ports() {
		Map<String, Integer> ports = new LinkedHashMap<>();
		this.nodes.forEach((node) -> ports.put(node.name(), node.port()));
		return ports;
	}

	/** Node name to the pid of its postmaster. */
	Map<String, Long> pids() {
		Map<String, Long> pids = new LinkedHashMap<>();
		this.nodes.forEach((node) -> pids.put(node.name(), node.pid()));
		return pids;
	}

	/** A superuser connection to a node's database, for tooling and tests. */
	public Connection connectAsSuperuser(String nodeName, String database) throws SQLException {
		return find(nodeName).connect(database, "postgres", this.properties.superuserPassword());
	}

	/**
	 * Starts a node of the running cluster again after a fault (a stop, a kill) that
	 * {@link NodeFaults} injected; a node that runs is left alone.
	 */
	void restart(String nodeName) throws IOException, InterruptedException {
		PostgresNode node = find(nodeName);
		if (!node.isRunning()) {
			node.start(this.properties.startTimeout(), Map.of(), this.properties.superuserPassword());
		}
	}

	PostgresNode find(String nodeName) {
		return this.nodes.stream()
			.filter((n) -> n.name().equals(nodeName))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No node named " + nodeName));
	}

	void start() {
		start(false);
	}

	private void start(boolean join) {
		ClusterOwnership.Claim claim = ClusterOwnership.claim(this.clusterDir.getParent(), ports());
		if (!claim.owned()) {
			if (!join) {
				throw ClusterOwnedException.forStart(this.clusterDir.getParent(), claim.owner());
			}
			join(claim.owner());
			return;
		}
		this.ownership = claim.ownership();
		long started = System.nanoTime();
		try {
			for (PostgresNode node : this.nodes) {
				node.stopForeign(STOP_TIMEOUT, "left running by an owner that ended without stopping it");
			}
			if (!Files.exists(this.clusterDir.resolve(BOOTSTRAPPED))) {
				bootstrap();
			}
			PostgresNode primary = currentPrimary();
			for (PostgresNode node : this.nodes) {
				if (node.isFenced()) {
					reclone(node, primary);
				}
			}
			configure(primary);
			primary.start(this.properties.startTimeout(), Map.of(), this.properties.superuserPassword());
			ensureSlots(primary);
			ensureRoles(primary);
			for (PostgresNode node : this.nodes) {
				if (node != primary) {
					node.start(this.properties.startTimeout(), Map.of(), this.properties.superuserPassword());
				}
			}
			awaitStreaming(primary);
			log.info("Embedded cluster up in {} ms: {} (data in {})", (System.nanoTime() - started) / 1_000_000,
					ports(), this.clusterDir);
		}
		catch (IOException ex) {
			stop();
			throw new UncheckedIOException("Could not start the embedded cluster in " + this.clusterDir, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			stop();
			throw new IllegalStateException("Interrupted while starting the embedded cluster", ex);
		}
		catch (RuntimeException ex) {
			stop();
			throw ex;
		}
	}

	/**
	 * Uses the nodes another process runs, after checking that every node answers on the
	 * port this process was configured with.
	 */
	private void join(ClusterOwnership.Owner owner) {
		List<String> silent = new ArrayList<>();
		for (PostgresNode node : this.nodes) {
			try (Connection c = node.connect("postgres", "postgres", this.properties.superuserPassword())) {
				// answers
			}
			catch (SQLException ex) {
				silent.add(node.name() + " on port " + node.port() + " (" + ex.getMessage() + ")");
			}
		}
		if (!silent.isEmpty()) {
			throw ClusterOwnedException.forJoin(this.clusterDir.getParent(), owner, silent);
		}
		this.joinedOwner = owner;
		log.info("Using the embedded cluster run by {}: this process starts and stops none of its nodes",
				owner.describe());
	}

	private void stop() {
		if (this.ownership == null) {
			return;
		}
		try {
			// The primary first: its shutdown checkpoint streams to the running replicas.
			for (PostgresNode node : this.nodes) {
				try {
					node.stop(STOP_TIMEOUT);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
		finally {
			this.ownership.close();
			this.ownership = null;
		}
	}

	List<PostgresNode> nodes() {
		return this.nodes;
	}

	ClusterProperties properties() {
		return this.properties;
	}

	/** The one node without standby.signal. */
	PostgresNode currentPrimary() {
		List<PostgresNode> primaries = this.nodes.stream().filter((n) -> !n.isStandby()).toList();
		if (primaries.size() != 1) {
			throw new IllegalStateException("Expected exactly one node without standby.signal in " + this.clusterDir
					+ ", found " + primaries.stream().map(PostgresNode::name).toList());
		}
		return primaries.get(0);
	}

	/**
	 * Rewrites every node's node.conf: its port, and for standbys where to stream from.
	 */
	private void configure(PostgresNode primary) throws IOException {
		for (PostgresNode node : this.nodes) {
			configure(node, primary);
		}
	}

	void configure(PostgresNode node, PostgresNode primary) throws IOException {
		Map<String, String> settings = new LinkedHashMap<>();
		settings.put("port", Integer.toString(node.port()));
		settings.put("cluster_name", node.name());
		if (node == primary) {
			settings.put("synchronous_standby_names", synchronousStandbyNames(primary));
		}
		else if (node.isStandby()) {
			settings.put("primary_conninfo",
					"host=127.0.0.1 port=" + primary.port() + " user=replicator password="
							+ this.properties.replicationPassword() + " application_name=" + node.name()
							+ " connect_timeout=5");
			settings.put("primary_slot_name", node.name());
		}
		node.writeNodeConf(settings);
	}

	/**
	 * {@code ANY 1} over every other node, so a commit waits for whichever standby
	 * applies it first; empty (asynchronous) when synchronous replication is off. A
	 * primary whose standbys are all down makes commits wait until one connects.
	 */
	String synchronousStandbyNames(PostgresNode primary) {
		if (!this.properties.synchronousReplication()) {
			return "";
		}
		return this.nodes.stream()
			.filter((n) -> n != primary)
			.map(PostgresNode::name)
			.collect(Collectors.joining(", ", "ANY 1 (", ")"));
	}

	/**
	 * One physical replication slot per other node, named after it, reserving WAL from
	 * now on: a node cloned from the primary streams through it.
	 */
	void ensureSlots(PostgresNode primary) throws IOException {
		try (Connection c = primary.connect("postgres", "postgres", this.properties.superuserPassword());
				PreparedStatement s = c.prepareStatement("SELECT pg_create_physical_replication_slot(?, true) "
						+ "WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = ?)")) {
			for (PostgresNode node : this.nodes) {
				if (node != primary) {
					s.setString(1, node.name());
					s.setString(2, node.name());
					s.execute();
				}
			}
		}
		catch (SQLException ex) {
			throw new IOException("Could not create replication slots on " + primary.name() + ": " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Replaces a fenced node's data directory with a copy of the stopped primary's, as a
	 * standby: the way a failed primary, whose WAL may have diverged, comes back.
	 */
	private void reclone(PostgresNode node, PostgresNode primary) throws IOException {
		log.info("Node {}: fenced by a failover; re-cloning it from {} as a standby", node.name(), primary.name());
		FileTrees.delete(node.dataDir());
		FileTrees.copy(primary.dataDir(), node.dataDir(), EmbeddedCluster::notCloned);
		Files.createFile(node.dataDir().resolve("standby.signal"));
	}

	private void bootstrap() throws IOException, InterruptedException {
		log.info("Bootstrapping a new cluster in {}", this.clusterDir);
		FileTrees.delete(this.clusterDir);
		Files.createDirectories(this.clusterDir);
		PostgresNode primary = this.nodes.get(0);
		primary.initdb(this.properties.superuserPassword());
		Files.writeString(primary.dataDir().resolve("postgresql.conf"), ClusterSettings.postgresqlConf(this.properties),
				StandardOpenOption.APPEND);
		Files.writeString(primary.dataDir().resolve("pg_hba.conf"), ClusterSettings.pgHba());
		configure(primary, primary);
		// No standby exists yet: commits must not wait for one.
		primary.start(this.properties.startTimeout(), Map.of("synchronous_standby_names", ""),
				this.properties.superuserPassword());
		try {
			ensureRoles(primary);
			ensureSlots(primary);
		}
		finally {
			primary.stop(STOP_TIMEOUT);
		}
		for (PostgresNode replica : this.nodes.subList(1, this.nodes.size())) {
			FileTrees.copy(primary.dataDir(), replica.dataDir(), EmbeddedCluster::notCloned);
			Files.createFile(replica.dataDir().resolve("standby.signal"));
		}
		Files.createFile(this.clusterDir.resolve(BOOTSTRAPPED));
	}

	/** Run state and the primary's replication slots stay with the primary. */
	private static boolean notCloned(Path relative) {
		String name = relative.toString();
		return name.equals("postmaster.pid") || name.equals("postmaster.opts") || name.equals(PostgresNode.NODE_CONF)
				|| name.equals(PostgresNode.FENCE) || name.equals("pg_replslot");
	}

	/**
	 * The roles and privileges of db/scripts/init-primary.sh: the migration role owns the
	 * database and its schema, the runtime role may connect and look up names there, and
	 * the service's migrations grant it what it may do with the tables (db/migration).
	 * <p>
	 * Run at every start, and idempotent: a cluster bootstrapped before there were two
	 * roles, where the runtime role owned everything, gets the migration role, which
	 * takes over what the runtime role owned; the service's next migration then grants
	 * the runtime role its privileges. Its commits do not wait for a standby, which may
	 * not run yet.
	 */
	private void ensureRoles(PostgresNode primary) throws IOException {
		ClusterProperties p = this.properties;
		boolean separate = !p.username().equals(p.migrationUsername());
		boolean takeOver;
		try (Connection c = primary.connect("postgres", "postgres", p.superuserPassword())) {
			execute(c, "SET synchronous_commit = local");
			createRoleIfMissing(c, p.migrationUsername(), "LOGIN", p.migrationPassword());
			createRoleIfMissing(c, p.username(), "LOGIN", p.password());
			createRoleIfMissing(c, "replicator", "LOGIN REPLICATION", p.replicationPassword());
			// The runtime role reads the standbys through monitoring.standbys() (below);
			// it was a member of pg_monitor, then of pg_read_all_stats, before.
			revokeMembership(c, p.username(), "pg_monitor");
			revokeMembership(c, p.username(), "pg_read_all_stats");
			String owner = queryValue(c, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = ?",
					p.database());
			if (owner == null) {
				execute(c, "CREATE DATABASE %I OWNER %I", p.database(), p.migrationUsername());
			}
			takeOver = separate && p.username().equals(owner);
			if (takeOver) {
				log.info("Database {}: handing what role {} owns to the migration role {}", p.database(), p.username(),
						p.migrationUsername());
				execute(c, "ALTER DATABASE %I OWNER TO %I", p.database(), p.migrationUsername());
			}
			execute(c, "REVOKE ALL ON DATABASE %I FROM PUBLIC", p.database());
			execute(c, "GRANT CONNECT ON DATABASE %I TO %I", p.database(), p.username());
		}
		catch (SQLException ex) {
			throw new IOException("Could not create the roles and the database: " + ex.getMessage(), ex);
		}
		try (Connection c = primary.connect(p.database(), "postgres", p.superuserPassword())) {
			// The migration role owns this database and could give it a search_path that
			// puts its own functions (a format(...) of its own) before pg_catalog's for
			// this superuser's session: the session's own comes first, before any call.
			try (Statement s = c.createStatement()) {
				s.execute("SET search_path = pg_catalog, pg_temp");
			}
			execute(c, "SET synchronous_commit = local");
			if (takeOver) {
				execute(c, "REASSIGN OWNED BY %I TO %I", p.username(), p.migrationUsername());
			}
			execute(c, "ALTER SCHEMA public OWNER TO %I", p.migrationUsername());
			execute(c, "REVOKE ALL ON SCHEMA public FROM PUBLIC");
			execute(c, "GRANT USAGE ON SCHEMA public TO %I", p.username());
			// Its schema named: the session's search_path begins with pg_catalog,
			// where no extension may be created.
			execute(c, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA public");
			// Tests read pg_stat_statements as the superuser; the service reads the
			// standbys through this function alone (db/scripts/monitoring.sql).
			try (Statement s = c.createStatement()) {
				s.execute(monitoringSql());
			}
			execute(c, "GRANT USAGE ON SCHEMA monitoring TO %I", p.username());
			execute(c, "GRANT EXECUTE ON FUNCTION monitoring.standbys() TO %I", p.username());
		}
		catch (SQLException ex) {
			throw new IOException("Could not set the privileges in database " + p.database() + ": " + ex.getMessage(),
					ex);
		}
	}

	private static void createRoleIfMissing(Connection c, String role, String attributes, String password)
			throws SQLException {
		if (queryValue(c, "SELECT rolname FROM pg_roles WHERE rolname = ?", role) == null) {
			execute(c, "CREATE ROLE %I " + attributes + " PASSWORD %L", role, password);
		}
	}

	/** Revokes {@code group} from {@code role} where the role is a direct member. */
	private static void revokeMembership(Connection c, String role, String group) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(
				"SELECT FROM pg_auth_members m " + "WHERE m.member = (SELECT oid FROM pg_roles WHERE rolname = ?) "
						+ "AND m.roleid = (SELECT oid FROM pg_roles WHERE rolname = ?)")) {
			ps.setString(1, role);
			ps.setString(2, group);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					return;
				}
			}
		}
		execute(c, "REVOKE %I FROM %I", group, role);
	}

	/** db/scripts/monitoring.sql, which the build puts on the test classpath. */
	private static String monitoringSql() throws IOException {
		try (InputStream in = EmbeddedCluster.class.getResourceAsStream("/db/scripts/monitoring.sql")) {
			if (in == null) {
				throw new IOException("db/scripts/monitoring.sql is not on the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/** The first column of the first row, or null when there is no row. */
	private static String queryValue(Connection c, String sql, String parameter) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, parameter);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : null;
			}
		}
	}

	/**
	 * Runs a statement built by PostgreSQL's format(), so names and literals are quoted
	 * by the server.
	 */
	private static void execute(Connection c, String template, String... arguments) throws SQLException {
		StringBuilder sql = new StringBuilder("SELECT format(?");
		for (int i = 0; i < arguments.length; i++) {
			sql.append(", ?");
		}
		sql.append(")");
		String statement;
		try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
			ps.setString(1, template);
			for (int i = 0; i < arguments.length; i++) {
				ps.setString(i + 2, arguments[i]);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				statement = rs.getString(1);
			}
		}
		try (Statement s = c.createStatement()) {
			s.execute(statement);
		}
	}

	/**
	 * Waits until every replica streams; a replica that does not is logged, not fatal.
	 */
	private void awaitStreaming(PostgresNode primary) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		int expected = this.nodes.size() - 1;
		int streaming = 0;
		while (System.nanoTime() < deadline) {
			try (Connection c = primary.connect("postgres", "postgres", this.properties.superuserPassword());
					Statement s = c.createStatement();
					ResultSet rs = s
						.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
				rs.next();
				streaming = rs.getInt(1);
				if (streaming == expected) {
					return;
				}
			}
			catch (SQLException ex) {
				log.debug("Waiting for replication: {}", ex.getMessage());
			}
			Thread.sleep(100);
		}
		log.warn("Only {} of {} replicas are streaming after 30 s; see the node logs in {}", streaming, expected,
				this.clusterDir);
	}

}
