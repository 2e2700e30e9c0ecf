package dev.highload.profiles.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PostgreSQL server process of the embedded cluster: its data directory, its port and
 * its postmaster. PostgreSQL refuses to run as root, so when this JVM is root every
 * server command runs in a user namespace that maps an unprivileged user onto root: the
 * files stay root's, and no chown or extra account is needed.
 */
final class PostgresNode {

	private static final Logger log = LoggerFactory.getLogger(PostgresNode.class);

	/**
	 * The per-node settings file that postgresql.conf includes, rewritten at every start.
	 */
	static final String NODE_CONF = "node.conf";

	/**
	 * Marks a data directory that a failover took the primary role from: it may hold WAL
	 * the new primary never saw, so it is never started as it is but re-cloned.
	 */
	static final String FENCE = "fenced-by-failover";

	private final String name;

	private final Path dataDir;

	private final int port;

	private final PostgresBinaries binaries;

	private Process process;

	PostgresNode(String name, Path dataDir, int port, PostgresBinaries binaries) {
		this.name = name;
		this.dataDir = dataDir.toAbsolutePath();
		this.port = port;
		this.binaries = binaries;
	}

	String name() {
		return this.name;
	}

	int port() {
		return this.port;
	}

	Path dataDir() {
		return this.dataDir;
	}

	Path logFile() {
		return this.dataDir.resolveSibling(this.name + ".log");
	}

	boolean isStandby() {
		return Files.exists(this.dataDir.resolve("standby.signal"));
	}

	boolean isFenced() {
		return Files.exists(this.dataDir.resolve(FENCE));
	}

	/**
	 * Makes this data directory unable to serve as a primary: standby.signal without an
	 * upstream (a postmaster started on it by hand stays read-only), and the fence mark.
	 */
	void fence(String reason) throws IOException {
		Files.writeString(this.dataDir.resolve(FENCE), reason + "\n");
		if (!isStandby()) {
			Files.createFile(this.dataDir.resolve("standby.signal"));
		}
		writeNodeConf(Map.of("port", Integer.toString(this.port), "cluster_name", this.name));
	}

	/** The postmaster's pid from postmaster.pid, or -1 when the file is absent. */
	long lockFilePid() throws IOException {
		Path lockFile = this.dataDir.resolve("postmaster.pid");
		if (!Files.exists(lockFile)) {
			return -1;
		}
		List<String> lines = Files.readAllLines(lockFile, StandardCharsets.UTF_8);
		return lines.isEmpty() ? -1 : parsePid(lines.get(0));
	}

	boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	long pid() {
		return (this.process != null) ? this.process.pid() : -1;
	}

	void initdb(String superuserPassword) throws IOException, InterruptedException {
		Files.createDirectories(this.dataDir.getParent());
		Path passwordFile = Files.createTempFile(this.dataDir.getParent(), "pwfile", "");
		try {
			Files.writeString(passwordFile, superuserPassword + "\n");
			passwordFile.toFile().setReadable(true, false);
			run(List.of(this.binaries.initdb().toString(), "-D", this.dataDir.toString(), "-U", "postgres",
					"--pwfile=" + passwordFile, "--auth=scram-sha-256", "--encoding=UTF8", "--locale-provider=builtin",
					"--builtin-locale=C.UTF-8", "--no-instructions"));
		}
		finally {
			Files.deleteIfExists(passwordFile);
		}
	}

	void writeNodeConf(Map<String, String> settings) throws IOException {
		String lines = settings.entrySet()
			.stream()
			.map((e) -> e.getKey() + " = '" + e.getValue().replace("'", "''") + "'")
			.collect(Collectors.joining("\n", "# Written by the embedded cluster at every start.\n", "\n"));
		Files.writeString(this.dataDir.resolve(NODE_CONF), lines);
	}

	/**
	 * Stops the postmaster running on this data directory that this process did not
	 * start, and removes a lock file whose process is gone. Only the cluster's owner
	 * ({@link ClusterOwnership}), for nodes a crashed owner left behind, and the failover
	 * command, fencing the old primary, call it.
	 * @param timeout how long the fast shutdown may take
	 * @param whose whose postmaster it is, for the log
	 */
	void stopForeign(Duration timeout, String whose) throws IOException, InterruptedException {
		Path lockFile = this.dataDir.resolve("postmaster.pid");
		if (!Files.exists(lockFile)) {
			return;
		}
		long pid = lockFilePid();
		Optional<ProcessHandle> handle = (pid > 0) ? ProcessHandle.of(pid) : Optional.empty();
		if (handle.isPresent() && handle.get().isAlive() && isPostgres(handle.get())) {
			log.warn("Node {}: stopping postmaster {}, {}", this.name, pid, whose);
			signal(pid, "INT");
			if (!awaitExit(handle.get(), timeout)) {
				signal(pid, "QUIT");
				if (!awaitExit(handle.get(), Duration.ofSeconds(10))) {
					handle.get().destroyForcibly();
					awaitExit(handle.get(), Duration.ofSeconds(10));
				}
			}
		}
		else {
			log.info("Node {}: removing stale lock file of process {}", this.name, pid);
			Files.deleteIfExists(lockFile);
		}
	}

	/**
	 * Starts the postmaster and waits until it accepts connections.
	 * @param timeout how long to wait
	 * @param extraSettings {@code -c} settings for this start only
	 * @param superuserPassword to probe readiness with
	 */
	void start(Duration timeout, Map<String, String> extraSettings, String superuserPassword)
			throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(
				List.of(this.binaries.postgres().toString(), "-D", this.dataDir.toString()));
		extraSettings.forEach((key, value) -> {
			command.add("-c");
			command.add(key + "=" + value);
		});
		ProcessBuilder builder = new ProcessBuilder(Privileges.unprivileged(command)).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
		builder.environment().put("LC_MESSAGES", "C");
		log.info("Node {}: starting on port {} as {}", this.name, this.port, isStandby() ? "standby" : "primary");
		this.process = builder.start();
		awaitReady(timeout, superuserPassword);
	}

	/** Fast shutdown: rolls back open transactions and writes a shutdown checkpoint. */
	void stop(Duration timeout) throws InterruptedException {
		if (!isRunning()) {
			return;
		}
		log.info("Node {}: stopping", this.name);
		signal(this.process.pid(), "INT");
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			log.warn("Node {}: no clean shutdown within {}, sending SIGQUIT", this.name, timeout);
			signal(this.process.pid(), "QUIT");
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor();
			}
		}
	}

	Connection connect(String database, String user, String password) throws SQLException {
		Properties properties = new Properties();
		properties.setProperty("user", user);
		properties.setProperty("password", password);
		properties.setProperty("connectTimeout", "5");
		properties.setProperty("socketTimeout", "60");
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + this.port + "/" + database, properties);
	}

	private void awaitReady(Duration timeout, String superuserPassword) throws InterruptedException, IOException {
		long deadline = System.nanoTime() + timeout.toNanos();
		SQLException last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("Node " + this.name + " exited with code " + this.process.exitValue()
						+ " during start-up. Last lines of " + logFile() + ":\n" + tail(logFile(), 20));
			}
			try (Connection connection = connect("postgres", "postgres", superuserPassword)) {
				return;
			}
			catch (SQLException ex) {
				last = ex;
				Thread.sleep(100);
			}
		}
		throw new IllegalStateException("Node " + this.name + " did not accept connections on port " + this.port
				+ " within " + timeout + " (" + ((last != null) ? last.getMessage() : "") + "). Last lines of "
				+ logFile() + ":\n" + tail(logFile(), 20));
	}

	private void run(List<String> command) throws IOException, InterruptedException {
		Process p = new ProcessBuilder(Privileges.unprivileged(command)).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
			.start();
		if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
			p.destroyForcibly();
			throw new IllegalStateException(
					"Command failed: " + command + ". Last lines of " + logFile() + ":\n" + tail(logFile(), 20));
		}
	}

	static void signal(long pid, String signal) {
		try {
			new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not signal process " + pid, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static boolean awaitExit(ProcessHandle handle, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (handle.isAlive() && System.nanoTime() < deadline) {
			Thread.sleep(100);
		}
		return !handle.isAlive();
	}

	private static boolean isPostgres(ProcessHandle handle) {
		return handle.info().command().map((c) -> c.endsWith("/postgres")).orElse(true);
	}

	private static long parsePid(String line) {
		try {
			return Long.parseLong(line.trim());
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static String tail(Path file, int lines) throws IOException {
		if (!Files.exists(file)) {
			return "(no log)";
		}
		List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
		return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
	}

}
