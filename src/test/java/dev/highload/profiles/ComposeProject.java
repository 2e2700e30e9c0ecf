package dev.highload.profiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A compose project driven through the {@code docker compose} CLI, for the tests that
 * kill, stop and re-create its containers: a project name and compose files of its own,
 * the environment of the test (its ports, subnets and limits) on top of the images of the
 * machine (docker/local-images.env, where exported).
 *
 * @param name the project's name ({@code -p})
 * @param files the compose files ({@code -f}); one that does not exist when a command
 * runs is left out, so an override written mid-test takes effect from then on
 * @param environment variables for every command, over the test JVM's own
 */
record ComposeProject(String name, List<Path> files, Map<String, String> environment) {

	/** A secret docker/secrets.sh made for this project. */
	String secret(String name) throws IOException {
		return Files.readString(Path.of(this.environment.get("SECRETS_DIR"), name), StandardCharsets.UTF_8).strip();
	}

	/** The same project, with more variables in every command's environment. */
	ComposeProject withEnvironment(Map<String, String> more) {
		Map<String, String> environment = new HashMap<>(this.environment);
		environment.putAll(more);
		return new ComposeProject(this.name, this.files, environment);
	}

	/** Whether this machine has Compose v2 ({@link RequiresDocker} asks). */
	static boolean available() throws IOException, InterruptedException {
		return run(Duration.ofSeconds(30), List.of("docker", "compose", "version"), Map.of()).exitCode() == 0;
	}

	Result compose(Duration timeout, String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("docker", "compose", "-p", this.name));
		for (Path file : this.files) {
			if (Files.exists(file)) {
				command.addAll(List.of("-f", file.toString()));
			}
		}
		command.addAll(List.of(arguments));
		return run(timeout, command);
	}

	/**
	 * Starts the project from nothing, building its images and waiting for every
	 * healthcheck: first removes whatever an interrupted run left behind, and removes
	 * what it started if that fails. Its secrets are made by docker/secrets.sh in the
	 * {@code SECRETS_DIR} of its environment, which must be set.
	 * @param work the test's own directory, created
	 */
	void upAnew(Duration timeout, Path work) throws IOException, InterruptedException {
		Files.createDirectories(work);
		String secrets = this.environment.get("SECRETS_DIR");
		assertThat(secrets).as("SECRETS_DIR of compose project " + this.name).isNotNull();
		Result made = run(Duration.ofSeconds(60), List.of("bash", "docker/secrets.sh", secrets));
		assertThat(made.exitCode()).as("docker/secrets.sh:\n" + made.output()).isZero();
		compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans");
		Result up;
		// Issue 59: no password on any command line while the deployment starts (its
		// scripts run psql, and etcdctl in the HA deployment).
		try {
			try (CommandLineWatch watch = CommandLineWatch.passwordsOf(Path.of(secrets), Set.of("psql", "etcdctl"))) {
				up = compose(timeout, "up", "--build", "-d", "--wait");
				assertThat(up.exitCode()).as("docker compose up:\n" + up.output()).isZero();
			}
		}
		catch (AssertionError | RuntimeException ex) {
			compose(Duration.ofMinutes(5), "down", "-v", "--remove-orphans");
			throw ex;
		}
	}

	/** Any other command, in the same environment. */
	Result run(Duration timeout, List<String> command) throws IOException, InterruptedException {
		return run(timeout, command, this.environment);
	}

	/**
	 * The address of a service that runs in the host's network namespace
	 * (docker-compose.yml's {@code app}) on the port one of this project's variables
	 * sets.
	 */
	URI hostAddress(String portVariable) {
		String port = this.environment.get(portVariable);
		assertThat(port).as(portVariable + " of compose project " + this.name).isNotNull();
		return URI.create("http://127.0.0.1:" + port);
	}

	/**
	 * A port free on the host's loopback interface now, for a service in the host's
	 * network namespace: Docker cannot pick one for it, as it does for a published port.
	 */
	static String freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return Integer.toString(socket.getLocalPort());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The host address of a service's published port, on the loopback interface. */
	URI address(String service, int port) throws IOException, InterruptedException {
		return address("http", service, port);
	}

	/** The same, with another scheme ({@code https}). */
	URI address(String scheme, String service, int port) throws IOException, InterruptedException {
		Result result = compose(Duration.ofSeconds(30), "port", service, Integer.toString(port));
		assertThat(result.exitCode()).as(result.output()).isZero();
		return URI.create(scheme + "://" + result.stdout().strip().replace("0.0.0.0", "127.0.0.1"));
	}

	/**
	 * A TLS context that trusts the certificate authority docker/secrets.sh made for this
	 * project ({@code tls-ca.crt}), and nothing else.
	 */
	SSLContext trustingItsAuthority() throws IOException, GeneralSecurityException {
		Certificate authority;
		try (InputStream in = Files.newInputStream(Path.of(this.environment.get("SECRETS_DIR"), "tls-ca.crt"))) {
			authority = CertificateFactory.getInstance("X.509").generateCertificate(in);
		}
		KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
		store.load(null, null);
		store.setCertificateEntry("project-ca", authority);
		TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trust.init(store);
		SSLContext context = SSLContext.getInstance("TLS");
		context.init(null, trust.getTrustManagers(), null);
		return context;
	}

	/**
	 * A service's container address on one of the project's networks (its name without
	 * the prefix).
	 */
	String networkAddress(String service, String network) throws IOException, InterruptedException {
		String container = compose(Duration.ofSeconds(30), "ps", "-q", service).stdout().strip();
		Result inspect = run(Duration.ofSeconds(30), List.of("docker", "inspect", "-f",
				"{{(index .NetworkSettings.Networks \"" + this.name + "_" + network + "\").IPAddress}}", container));
		assertThat(inspect.exitCode()).as(inspect.output()).isZero();
		return inspect.stdout().strip();
	}

	/**
	 * One query through psql in a node's container, as the superuser over its trusted
	 * Unix socket.
	 * @throws IllegalStateException if psql fails (the node is down, the query fails)
	 */
	String psql(String node, String database, String sql) throws IOException, InterruptedException {
		Result result = compose(Duration.ofSeconds(60), "exec", "-T", node, "psql", "-U", "postgres", "-d", database,
				"-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql);
		if (result.exitCode() != 0) {
			throw new IllegalStateException(node + ": " + result.output());
		}
		return result.stdout().strip();
	}

	/**
	 * The marker rows of the lost-write check on the one node out of recovery; a node
	 * that does not answer is skipped.
	 * @throws IllegalStateException if two nodes are writable, or none answers as one
	 */
	LostWriteCheck.Rows primaryRows(List<String> nodes, String markerPrefix, String keyPrefix)
			throws IOException, InterruptedException {
		LostWriteCheck.Rows rows = null;
		for (String node : nodes) {
			String recovery;
			try {
				recovery = psql(node, "postgres", "SELECT pg_is_in_recovery()");
			}
			catch (IllegalStateException ex) {
				continue;
			}
			if (!"f".equals(recovery)) {
				continue;
			}
			if (rows != null) {
				throw new IllegalStateException("Two primaries: " + rows.primary() + " and " + node);
			}
			rows = LostWriteCheck.Rows.parse(node,
					lines(psql(node, "profiles", LostWriteCheck.usersQuery(markerPrefix))),
					lines(psql(node, "profiles", LostWriteCheck.keysQuery(keyPrefix))),
					Long.parseLong(psql(node, "profiles", "SELECT count(*) FROM users")));
		}
		if (rows == null) {
			throw new IllegalStateException("No primary answers after the failover");
		}
		return rows;
	}

	private static List<String> lines(String output) {
		return output.lines().filter((line) -> !line.isEmpty()).toList();
	}

	static Result run(Duration timeout, List<String> command, Map<String, String> environment)
			throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().putAll(environment);
		Path out = Files.createTempFile("compose-", ".out");
		Path err = Files.createTempFile("compose-", ".err");
		try {
			Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
			boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (!ended) {
				process.destroyForcibly().waitFor();
			}
			Result result = new Result(ended ? process.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
					Files.readString(err, StandardCharsets.UTF_8));
			if (!ended) {
				throw new IllegalStateException("Timed out after " + timeout + ": " + command + "\n" + result.output());
			}
			return result;
		}
		finally {
			Files.deleteIfExists(out);
			Files.deleteIfExists(err);
		}
	}

	/**
	 * How a command ended.
	 *
	 * @param exitCode its exit status
	 * @param stdout what it printed
	 * @param stderr what it logged
	 */
	record Result(int exitCode, String stdout, String stderr) {

		String output() {
			return this.stdout + this.stderr;
		}

	}

}
