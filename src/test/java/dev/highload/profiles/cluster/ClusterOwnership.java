package dev.highload.profiles.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which process owns the embedded cluster of a base directory: an operating-system lock
 * on {@code <base-dir>/cluster.lock}, held for as long as the owner runs. The kernel
 * releases the lock when the owning process ends, however it ends ({@code kill -9}
 * included), so a crashed owner never blocks the next start, and the lock is never left
 * behind the way a pid file is. The owner writes who it is into the same file, for the
 * message another process prints.
 * <p>
 * Java locks through {@code fcntl}, whose locks belong to the process and are dropped
 * when the process closes <em>any</em> descriptor of the file. So this JVM opens the file
 * once per base directory and never reads it while it owns it; owners are tracked in
 * {@link #held}.
 */
final class ClusterOwnership implements AutoCloseable {

	private static final String LOCK_FILE = "cluster.lock";

	private static final Map<Path, ClusterOwnership> held = new HashMap<>();

	private final Path lockFile;

	private final FileChannel channel;

	private final FileLock lock;

	private ClusterOwnership(Path lockFile, FileChannel channel, FileLock lock) {
		this.lockFile = lockFile;
		this.channel = channel;
		this.lock = lock;
	}

	/**
	 * Takes the cluster of a base directory for this process.
	 * @param baseDir the cluster's base directory
	 * @param ports the nodes' ports, for the same message
	 * @return this process's ownership, or the other owner when another process holds it
	 */
	static synchronized Claim claim(Path baseDir, Map<String, Integer> ports) {
		Path lockFile = lockFile(baseDir);
		if (held.containsKey(lockFile)) {
			throw new IllegalStateException("This process already owns the cluster in " + baseDir);
		}
		try {
			Files.createDirectories(lockFile.getParent());
			FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
					StandardOpenOption.WRITE);
			FileLock lock;
			try {
				lock = channel.tryLock();
			}
			catch (IOException | RuntimeException ex) {
				channel.close();
				throw ex;
			}
			if (lock == null) {
				// Not ours: closing our descriptor drops no lock of this process.
				channel.close();
				return new Claim(null, readOwner(lockFile));
			}
			ClusterOwnership ownership = new ClusterOwnership(lockFile, channel, lock);
			ownership.describe(ports);
			held.put(lockFile, ownership);
			return new Claim(ownership, null);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not lock " + lockFile, ex);
		}
	}

	/** Whether this process owns the cluster of a base directory. */
	static synchronized boolean heldHere(Path baseDir) {
		return held.containsKey(lockFile(baseDir));
	}

	/**
	 * The process that owns the cluster of a base directory, if any; never this one's
	 * (check {@link #heldHere} first). Reading the lock file is safe then: this process
	 * holds no lock on it that a close could drop.
	 */
	static synchronized Optional<Owner> otherOwner(Path baseDir) {
		Path lockFile = lockFile(baseDir);
		if (held.containsKey(lockFile)) {
			throw new IllegalStateException("This process owns the cluster in " + baseDir);
		}
		if (!Files.exists(lockFile)) {
			return Optional.empty();
		}
		try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
			FileLock probe = channel.tryLock();
			if (probe != null) {
				probe.release();
				return Optional.empty();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not probe " + lockFile, ex);
		}
		return Optional.of(readOwner(lockFile));
	}

	private static Path lockFile(Path baseDir) {
		return baseDir.toAbsolutePath().normalize().resolve(LOCK_FILE);
	}

	/**
	 * Records this process as the owner: pid, start time, ports, and its Java main class
	 * with arguments (the full command line is mostly class path).
	 */
	private void describe(Map<String, Integer> ports) throws IOException {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("pid", Long.toString(ProcessHandle.current().pid()));
		fields.put("since", Instant.now().toString());
		fields.put("ports", ports.toString());
		fields.put("program", shorten(System.getProperty("sun.java.command", "unknown")));
		StringBuilder text = new StringBuilder();
		fields.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
		this.channel.truncate(0);
		this.channel.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)), 0);
		this.channel.force(false);
	}

	private static String shorten(String commandLine) {
		String oneLine = commandLine.replace('\n', ' ');
		return (oneLine.length() > 300) ? oneLine.substring(0, 300) + "..." : oneLine;
	}

	private static Owner readOwner(Path lockFile) {
		Map<String, String> fields = new HashMap<>();
		try {
			for (String line : Files.readAllLines(lockFile, StandardCharsets.UTF_8)) {
				int equals = line.indexOf('=');
				if (equals > 0) {
					fields.put(line.substring(0, equals), line.substring(equals + 1));
				}
			}
		}
		catch (IOException ex) {
			// The owner is still named as unknown: the lock itself is what counts.
		}
		long pid;
		try {
			pid = Long.parseLong(fields.getOrDefault("pid", "-1"));
		}
		catch (NumberFormatException ex) {
			pid = -1;
		}
		return new Owner(pid, fields.getOrDefault("since", "unknown"), fields.getOrDefault("ports", "unknown"),
				fields.getOrDefault("program", "unknown"));
	}

	/** Gives the cluster up; the kernel does the same when the process ends. */
	@Override
	public void close() {
		synchronized (ClusterOwnership.class) {
			held.remove(this.lockFile);
		}
		try {
			this.lock.release();
			this.channel.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not release " + this.lockFile, ex);
		}
	}

	/**
	 * The outcome of {@link #claim}: exactly one of the two is set.
	 *
	 * @param ownership this process's ownership
	 * @param owner the process that owns the cluster instead
	 */
	record Claim(ClusterOwnership ownership, Owner owner) {

		boolean owned() {
			return this.ownership != null;
		}

	}

	/**
	 * The process that owns a cluster, as it described itself.
	 *
	 * @param pid its process id
	 * @param since when it took the cluster
	 * @param ports its nodes' ports
	 * @param program its Java main class and arguments, shortened
	 */
	record Owner(long pid, String since, String ports, String program) {

		String describe() {
			return "process " + this.pid + " (" + this.program + ", owner since " + this.since + ", nodes " + this.ports
					+ ")";
		}

	}

}
