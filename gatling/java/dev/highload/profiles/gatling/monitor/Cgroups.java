package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's CPU time from its cgroup. The cgroup is the one
 * {@code /proc/<pid>/cgroup} names for a process in the container, under the mount that
 * {@code /proc/self/mountinfo} gives for its hierarchy: cgroup v1's {@code cpuacct.usage}
 * (nanoseconds) where a cpuacct hierarchy is mounted, as Docker's cgroupfs driver uses it
 * on a v1 or hybrid host, else cgroup v2's {@code usage_usec} in {@code cpu.stat}. Paths
 * are never guessed from the container id: the cgroup driver (cgroupfs or systemd) and
 * the mount points differ from host to host.
 * <p>
 * Read here rather than asked of Docker: {@code docker stats --no-stream} took 2.0 to 2.6
 * s a call on the 2-vCPU machine of this change (Docker 20.10, four containers), too slow
 * for a figure a second, while the files are one small read per container; OSHI and
 * {@code ProcessHandle} know no cgroup.
 */
final class Cgroups {

	private static final Path PROC = Path.of("/proc");

	/**
	 * A Docker container's id in a cgroup path: {@code /docker/<id>} (cgroupfs driver) or
	 * {@code /system.slice/docker-<id>.scope} (systemd driver).
	 */
	private static final Pattern CONTAINER_ID = Pattern
		.compile("(?:/docker/|/docker-)([0-9a-f]{64})(?:\\.scope)?(?=/|$)");

	private Cgroups() {
	}

	/**
	 * The id of the Docker container a process runs in.
	 * @param pid the process
	 * @return the full container id; empty for a process of the host, or one that exited
	 */
	static Optional<String> containerIdOf(long pid) {
		return read(PROC.resolve(pid + "/cgroup")).flatMap(Cgroups::containerId);
	}

	/**
	 * The CPU counter of the cgroup a process is in.
	 * @param pid the process, any one of its container's
	 * @return the counter; empty when the process exited or its cgroup has no readable
	 * CPU figure
	 */
	static Optional<CpuCounter> cpuCounterOf(long pid) {
		Optional<String> cgroup = read(PROC.resolve(pid + "/cgroup"));
		Optional<String> mountinfo = read(PROC.resolve("self/mountinfo"));
		return (cgroup.isPresent() && mountinfo.isPresent()) ? cpuCounter(cgroup.get(), mountinfo.get())
				: Optional.empty();
	}

	/**
	 * The Docker container id in the contents of {@code /proc/<pid>/cgroup}.
	 * @param procCgroup the file's contents
	 * @return the full container id, or empty
	 */
	static Optional<String> containerId(String procCgroup) {
		for (String line : procCgroup.split("\n")) {
			String[] fields = line.split(":", 3);
			if (fields.length == 3) {
				Matcher matcher = CONTAINER_ID.matcher(fields[2].strip());
				if (matcher.find()) {
					return Optional.of(matcher.group(1));
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * The CPU counter of a process's cgroup: v1's {@code cpuacct.usage} if the process is
	 * in a cpuacct hierarchy that is mounted, else v2's {@code cpu.stat}; the first whose
	 * file can be read.
	 * @param procCgroup the contents of the process's {@code /proc/<pid>/cgroup}
	 * @param mountinfo the contents of {@code /proc/self/mountinfo}
	 * @return the counter, or empty
	 */
	static Optional<CpuCounter> cpuCounter(String procCgroup, String mountinfo) {
		List<Mount> mounts = mounts(mountinfo);
		for (String line : procCgroup.split("\n")) {
			String[] fields = line.split(":", 3);
			if (fields.length == 3 && !fields[0].equals("0")
					&& Set.of(fields[1].split(",")).contains(Version.V1.controller)) {
				Optional<CpuCounter> counter = counter(Version.V1, fields[2].strip(), mounts);
				if (counter.isPresent()) {
					return counter;
				}
			}
		}
		for (String line : procCgroup.split("\n")) {
			String[] fields = line.split(":", 3);
			if (fields.length == 3 && fields[0].equals("0") && fields[1].isEmpty()) {
				return counter(Version.V2, fields[2].strip(), mounts);
			}
		}
		return Optional.empty();
	}

	private static Optional<CpuCounter> counter(Version version, String cgroupPath, List<Mount> mounts) {
		for (Mount mount : mounts) {
			if (mount.holds(version)) {
				Optional<Path> dir = mount.resolve(cgroupPath);
				if (dir.isPresent() && Files.isReadable(dir.get().resolve(version.file))) {
					return Optional.of(new CpuCounter(dir.get().resolve(version.file), version));
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * The cgroup file systems among the mounts of {@code /proc/self/mountinfo}: (1) id
	 * (2) parent (3) device (4) root (5) mount point (6) options, optional fields up to a
	 * {@code -}, then the type, the source and the super options.
	 */
	static List<Mount> mounts(String mountinfo) {
		List<Mount> mounts = new ArrayList<>();
		for (String line : mountinfo.split("\n")) {
			String[] fields = line.strip().split(" ");
			int separator = List.of(fields).indexOf("-");
			if (separator >= 6 && fields.length >= separator + 4) {
				String type = fields[separator + 1];
				if (type.equals("cgroup") || type.equals("cgroup2")) {
					mounts.add(new Mount(unescape(fields[3]), Path.of(unescape(fields[4])), type,
							Set.of(fields[separator + 3].split(","))));
				}
			}
		}
		return mounts;
	}

	/** Mountinfo's octal escapes: {@code \040} for a space, and so on. */
	private static String unescape(String field) {
		StringBuilder text = new StringBuilder(field.length());
		for (int i = 0; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c == '\\' && i + 3 < field.length() && isOctal(field.substring(i + 1, i + 4))) {
				text.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
				i += 3;
			}
			else {
				text.append(c);
			}
		}
		return text.toString();
	}

	private static boolean isOctal(String digits) {
		return digits.chars().allMatch((digit) -> digit >= '0' && digit <= '7');
	}

	/**
	 * CPU time in nanoseconds from a counter file's contents.
	 * @param version which file it is
	 * @param text its contents
	 * @return the CPU time of every process the cgroup ever held, in nanoseconds
	 * @throws NumberFormatException if the file does not hold the figure
	 */
	static long parseNanos(Version version, String text) {
		if (version == Version.V1) {
			return Long.parseLong(text.strip());
		}
		for (String line : text.split("\n")) {
			String[] fields = line.strip().split(" +");
			if (fields.length == 2 && fields[0].equals("usage_usec")) {
				return Long.parseLong(fields[1]) * 1000;
			}
		}
		throw new NumberFormatException("no usage_usec in cpu.stat");
	}

	private static Optional<String> read(Path file) {
		try {
			return Optional.of(Files.readString(file, StandardCharsets.ISO_8859_1));
		}
		catch (IOException | RuntimeException ex) {
			// The process exited, or the file is not ours to read.
			return Optional.empty();
		}
	}

	/** The two cgroup versions, and where each keeps the CPU time. */
	enum Version {

		/** cgroup v1: the cpuacct controller's total, in nanoseconds. */
		V1("cpuacct", "cpuacct.usage"),

		/** cgroup v2: {@code usage_usec} of {@code cpu.stat}, in microseconds. */
		V2("", "cpu.stat");

		private final String controller;

		private final String file;

		Version(String controller, String file) {
			this.controller = controller;
			this.file = file;
		}

		/**
		 * How the summary names it.
		 * @return {@code cgroup v1} or {@code cgroup v2}
		 */
		String label() {
			return (this == V1) ? "cgroup v1" : "cgroup v2";
		}

	}

	/**
	 * A mounted cgroup hierarchy.
	 *
	 * @param root the cgroup the mount shows at its mount point, {@code /} but in a
	 * cgroup namespace
	 * @param point where it is mounted
	 * @param type {@code cgroup} (v1) or {@code cgroup2}
	 * @param options the super options, which name a v1 hierarchy's controllers
	 */
	record Mount(String root, Path point, String type, Set<String> options) {

		boolean holds(Version version) {
			return (version == Version.V1) ? this.type.equals("cgroup") && this.options.contains(version.controller)
					: this.type.equals("cgroup2");
		}

		/** The directory of a cgroup path of this hierarchy, if the mount shows it. */
		Optional<Path> resolve(String cgroupPath) {
			String relative;
			if (this.root.equals("/")) {
				relative = cgroupPath;
			}
			else if (cgroupPath.equals(this.root) || cgroupPath.startsWith(this.root + "/")) {
				relative = cgroupPath.substring(this.root.length());
			}
			else {
				return Optional.empty();
			}
			relative = relative.replaceAll("^/+", "");
			return Optional.of(relative.isEmpty() ? this.point : this.point.resolve(relative));
		}

	}

	/**
	 * One cgroup's CPU time.
	 *
	 * @param file {@code cpuacct.usage} or {@code cpu.stat} of the cgroup
	 * @param version which of the two it is
	 */
	record CpuCounter(Path file, Version version) {

		/**
		 * Reads the counter.
		 * @return the CPU time the cgroup's processes used, in nanoseconds
		 * @throws IOException if the cgroup is gone (its container stopped) or the file
		 * holds no figure
		 */
		long nanos() throws IOException {
			try {
				return parseNanos(this.version, Files.readString(this.file, StandardCharsets.US_ASCII));
			}
			catch (NumberFormatException ex) {
				throw new IOException("No CPU time in " + this.file, ex);
			}
		}

	}

}
