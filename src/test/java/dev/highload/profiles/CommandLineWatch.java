package dev.highload.profiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 59: watches every process's command line on the host while a deployment starts or
 * fails over, for the passwords of its secrets directory. A container's processes are the
 * host's processes, and their command lines are readable by every user of the host in
 * /proc/PID/cmdline: a password there is a password given away. A thread reads every
 * /proc/PID/cmdline in a loop, a few milliseconds apart (a psql or etcdctl run lasts tens
 * of milliseconds); what it finds is kept by secret name and command, never by value.
 * <p>
 * {@link #close()} stops the watch and fails the test if any password was seen; it also
 * fails when the watch saw none of the commands it was told to expect, so that a watch
 * that cannot see the containers' processes cannot pass.
 */
final class CommandLineWatch implements AutoCloseable {

	private static final Path PROC = Path.of("/proc");

	private final Map<String, String> secrets;

	private final Set<String> expected;

	private final Set<String> found = new TreeSet<>();

	private final Set<String> seen = new TreeSet<>();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final Thread thread;

	private long sweeps;

	private CommandLineWatch(Map<String, String> secrets, Set<String> expected) {
		this.secrets = secrets;
		this.expected = expected;
		this.thread = new Thread(this::watch, "command-line-watch");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Watches for every {@code *-password} file of a secrets directory that
	 * docker/secrets.sh made.
	 * @param expected command names (the first word's last path segment) of which at
	 * least one must be seen while watching
	 */
	static CommandLineWatch passwordsOf(Path secretsDirectory, Set<String> expected) throws IOException {
		Map<String, String> secrets = new TreeMap<>();
		try (Stream<Path> files = Files.list(secretsDirectory)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().endsWith("-password")).toList()) {
				String value = Files.readString(file, StandardCharsets.UTF_8).strip();
				if (value.length() >= 8) {
					secrets.put(file.getFileName().toString(), value);
				}
			}
		}
		assertThat(secrets).as("passwords in " + secretsDirectory).isNotEmpty();
		return new CommandLineWatch(secrets, expected);
	}

	private void watch() {
		while (this.running.get()) {
			sweep();
			try {
				Thread.sleep(3);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private void sweep() {
		List<String> lines = new ArrayList<>();
		try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*")) {
			for (Path process : processes) {
				try {
					byte[] raw = Files.readAllBytes(process.resolve("cmdline"));
					if (raw.length > 0) {
						lines.add(new String(raw, StandardCharsets.UTF_8));
					}
				}
				catch (IOException gone) {
					// The process ended between the listing and the read.
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot list /proc", ex);
		}
		synchronized (this) {
			this.sweeps++;
			for (String line : lines) {
				String command = command(line);
				if (this.expected.contains(command)) {
					this.seen.add(command);
				}
				this.secrets.forEach((name, value) -> {
					if (line.contains(value)) {
						this.found.add(name + " in the command line of " + command);
					}
				});
			}
		}
	}

	private static String command(String cmdline) {
		String first = cmdline.split("\0", 2)[0];
		return first.substring(first.lastIndexOf('/') + 1);
	}

	@Override
	public void close() throws InterruptedException {
		this.running.set(false);
		this.thread.join();
		synchronized (this) {
			assertThat(this.seen)
				.as("commands seen in %d sweeps of /proc (expected any of %s)", this.sweeps, this.expected)
				.isNotEmpty();
			assertThat(this.found).as("passwords on command lines, in %d sweeps of /proc", this.sweeps).isEmpty();
		}
	}

}
