package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Reads CPU times, the process tree and listening sockets from Linux {@code /proc}. Every
 * read tolerates processes that exit while they are being read.
 * <p>
 * Hand-written because the libraries cost more where it matters: the sampler takes one
 * snapshot a second inside the Gatling JVM it measures. On the 2-vCPU Xeon machine of the
 * load-test report (153 processes, medians of three rounds of 100 calls, CPU time of the
 * calling thread), a snapshot cost 3.1 ms of CPU here,
 * {@code ProcessHandle.allProcesses()} with each process's {@code info()} and parent 9.1
 * ms (and it has no machine or steal times), and OSHI 6.9.1's {@code getProcesses()} with
 * the CPU ticks 13.8 ms.
 */
final class ProcFs {

	private static final Path PROC = Path.of("/proc");

	private static final String LISTEN = "0A";

	private ProcFs() {
	}

	/**
	 * Clock ticks per second, the unit of the CPU times in {@code /proc}. Asked once,
	 * because it is fixed for the life of the kernel.
	 */
	static long clockTicksPerSecond() {
		return ClockTicks.VALUE;
	}

	/**
	 * One pass over {@code /proc}: machine CPU counters and every process's parent and
	 * CPU time, taken together so that the process tree and the deltas agree.
	 */
	static Snapshot snapshot() throws IOException {
		long nanos = System.nanoTime();
		MachineTimes machine = machineTimes();
		long uptimeTicks = uptimeTicks();
		Map<Long, ProcStat> processes = new HashMap<>();
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
			for (Path entry : entries) {
				long pid = pidOf(entry);
				if (pid > 0) {
					ProcStat stat = readStat(pid);
					if (stat != null) {
						processes.put(pid, stat);
					}
				}
			}
		}
		return new Snapshot(nanos, uptimeTicks, machine, processes);
	}

	/**
	 * The process and all its descendants, from a fresh scan of {@code /proc}; empty when
	 * the process is not running.
	 */
	static Set<Long> processTree(long root) throws IOException {
		return snapshot().processTree(root);
	}

	/**
	 * The process that holds a TCP socket listening on the port, on any address, IPv4 or
	 * IPv6.
	 */
	static OptionalLong listeningPid(int port) {
		Set<String> inodes = new HashSet<>();
		listeningInodes(PROC.resolve("net/tcp"), port, inodes);
		listeningInodes(PROC.resolve("net/tcp6"), port, inodes);
		if (inodes.isEmpty()) {
			return OptionalLong.empty();
		}
		Set<String> links = new HashSet<>();
		for (String inode : inodes) {
			links.add("socket:[" + inode + "]");
		}
		// The current JVM often holds thousands of client sockets and is rarely the
		// service, so it is searched last.
		long self = ProcessHandle.current().pid();
		for (long pid : pids()) {
			if (pid != self && holdsAny(pid, links)) {
				return OptionalLong.of(pid);
			}
		}
		return holdsAny(self, links) ? OptionalLong.of(self) : OptionalLong.empty();
	}

	/**
	 * The first Java process whose command line contains one of the markers, in order of
	 * preference, skipping the current process and its ancestors (a Maven or Gatling
	 * launcher's command line names the project too).
	 */
	static OptionalLong javaProcessWithCommandLine(List<String> markers) {
		Set<Long> excluded = new HashSet<>();
		ProcessHandle current = ProcessHandle.current();
		excluded.add(current.pid());
		for (Optional<ProcessHandle> parent = current.parent(); parent.isPresent(); parent = parent.get().parent()) {
			excluded.add(parent.get().pid());
		}
		Map<Long, List<String>> commandLines = new HashMap<>();
		for (long pid : pids()) {
			if (!excluded.contains(pid)) {
				List<String> args = commandLine(pid);
				if (!args.isEmpty() && isJava(args.get(0))) {
					commandLines.put(pid, args);
				}
			}
		}
		for (String marker : markers) {
			for (Map.Entry<Long, List<String>> entry : commandLines.entrySet()) {
				if (entry.getValue().stream().anyMatch((arg) -> arg.contains(marker))) {
					return OptionalLong.of(entry.getKey());
				}
			}
		}
		return OptionalLong.empty();
	}

	/** The pid in the first line of a PostgreSQL data directory's postmaster.pid. */
	static OptionalLong postmasterPid(Path dataDir) {
		try (var lines = Files.lines(dataDir.resolve("postmaster.pid"), StandardCharsets.US_ASCII)) {
			return lines.findFirst().map(String::strip).map(ProcFs::parsePid).orElse(OptionalLong.empty());
		}
		catch (IOException | RuntimeException ex) {
			// Missing while the node is down, or half-written while it starts.
			return OptionalLong.empty();
		}
	}

	/**
	 * Parses the contents of {@code /proc/<pid>/stat}. The command name in parentheses
	 * may contain spaces and parentheses, so the fields are counted from the last closing
	 * parenthesis.
	 */
	static ProcStat parseStat(long pid, String text) {
		int close = text.lastIndexOf(')');
		if (close < 0) {
			return null;
		}
		String[] fields = text.substring(close + 1).strip().split(" +");
		// fields[0] is field 3 (state) of proc(5).
		if (fields.length < 20) {
			return null;
		}
		long ppid = Long.parseLong(fields[4 - 3]);
		long utime = Long.parseLong(fields[14 - 3]);
		long stime = Long.parseLong(fields[15 - 3]);
		long cutime = Long.parseLong(fields[16 - 3]);
		long cstime = Long.parseLong(fields[17 - 3]);
		long startTime = Long.parseLong(fields[22 - 3]);
		return new ProcStat(pid, ppid, utime, stime, cutime + cstime, startTime);
	}

	/**
	 * Parses the aggregate {@code cpu} line of {@code /proc/stat} and counts the
	 * {@code cpuN} lines.
	 */
	static MachineTimes parseMachineTimes(String text) {
		long total = 0;
		long idle = 0;
		long steal = 0;
		int cores = 0;
		for (String line : text.split("\n")) {
			if (line.startsWith("cpu ")) {
				String[] fields = line.substring(4).strip().split(" +");
				// user nice system idle iowait irq softirq steal; guest and guest_nice
				// are already counted in user and nice.
				for (int i = 0; i < Math.min(8, fields.length); i++) {
					total += Long.parseLong(fields[i]);
				}
				idle = Long.parseLong(fields[3]) + ((fields.length > 4) ? Long.parseLong(fields[4]) : 0);
				steal = (fields.length > 7) ? Long.parseLong(fields[7]) : 0;
			}
			else if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
				cores++;
			}
		}
		return new MachineTimes(total, total - idle - steal, steal, Math.max(cores, 1));
	}

	private static MachineTimes machineTimes() throws IOException {
		return parseMachineTimes(Files.readString(PROC.resolve("stat"), StandardCharsets.ISO_8859_1));
	}

	private static long uptimeTicks() throws IOException {
		String uptime = Files.readString(PROC.resolve("uptime"), StandardCharsets.US_ASCII).strip();
		double seconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
		return (long) (seconds * clockTicksPerSecond());
	}

	private static ProcStat readStat(long pid) {
		try {
			return parseStat(pid, Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.ISO_8859_1));
		}
		catch (IOException | RuntimeException ex) {
			// The process exited between the directory listing and the read.
			return null;
		}
	}

	private static List<Long> pids() {
		List<Long> pids = new ArrayList<>();
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
			for (Path entry : entries) {
				long pid = pidOf(entry);
				if (pid > 0) {
					pids.add(pid);
				}
			}
		}
		catch (IOException ex) {
			// No /proc: nothing can be found, which the callers report as absent.
		}
		return pids;
	}

	private static long pidOf(Path entry) {
		String name = entry.getFileName().toString();
		for (int i = 0; i < name.length(); i++) {
			if (!Character.isDigit(name.charAt(i))) {
				return -1;
			}
		}
		return name.isEmpty() ? -1 : parsePid(name).orElse(-1);
	}

	private static OptionalLong parsePid(String text) {
		try {
			long pid = Long.parseLong(text);
			return (pid > 0) ? OptionalLong.of(pid) : OptionalLong.empty();
		}
		catch (NumberFormatException ex) {
			return OptionalLong.empty();
		}
	}

	private static void listeningInodes(Path table, int port, Set<String> inodes) {
		List<String> lines;
		try {
			lines = Files.readAllLines(table, StandardCharsets.US_ASCII);
		}
		catch (IOException ex) {
			// tcp6 is missing when IPv6 is disabled.
			return;
		}
		String hexPort = String.format(Locale.ROOT, "%04X", port);
		for (int i = 1; i < lines.size(); i++) {
			String[] fields = lines.get(i).strip().split(" +");
			if (fields.length > 9 && LISTEN.equals(fields[3])) {
				String local = fields[1];
				if (local.substring(local.lastIndexOf(':') + 1).equalsIgnoreCase(hexPort) && !"0".equals(fields[9])) {
					inodes.add(fields[9]);
				}
			}
		}
	}

	private static boolean holdsAny(long pid, Set<String> links) {
		try (DirectoryStream<Path> fds = Files.newDirectoryStream(PROC.resolve(pid + "/fd"))) {
			for (Path fd : fds) {
				try {
					if (links.contains(Files.readSymbolicLink(fd).toString())) {
						return true;
					}
				}
				catch (IOException ex) {
					// Closed while we looked.
				}
			}
		}
		catch (IOException | SecurityException ex) {
			// Exited, or another user's process.
		}
		return false;
	}

	private static List<String> commandLine(long pid) {
		try {
			byte[] bytes = Files.readAllBytes(PROC.resolve(pid + "/cmdline"));
			List<String> args = new ArrayList<>();
			int start = 0;
			for (int i = 0; i <= bytes.length; i++) {
				if (i == bytes.length || bytes[i] == 0) {
					if (i > start) {
						args.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
					}
					start = i + 1;
				}
			}
			return args;
		}
		catch (IOException ex) {
			return List.of();
		}
	}

	/**
	 * Voluntary and involuntary context switches of all the process's live threads, from
	 * each {@code /proc/<pid>/task/<tid>/status}; 0 for a process that exited.
	 */
	static long contextSwitches(long pid) {
		long switches = 0;
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(PROC.resolve(pid + "/task"))) {
			for (Path task : tasks) {
				try {
					for (String line : Files.readAllLines(task.resolve("status"), StandardCharsets.ISO_8859_1)) {
						if (line.startsWith("voluntary_ctxt_switches:")
								|| line.startsWith("nonvoluntary_ctxt_switches:")) {
							switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
						}
					}
				}
				catch (IOException | NumberFormatException ex) {
					// The thread ended while we looked.
				}
			}
		}
		catch (IOException ex) {
			// The process exited.
		}
		return switches;
	}

	/** Whether the process runs a {@code java} executable. */
	static boolean isJavaProcess(long pid) {
		List<String> args = commandLine(pid);
		return !args.isEmpty() && isJava(args.get(0));
	}

	private static boolean isJava(String executable) {
		return executable.substring(executable.lastIndexOf('/') + 1).equals("java");
	}

	/**
	 * One process's line of {@code /proc/<pid>/stat}.
	 *
	 * @param pid the process id
	 * @param ppid its parent's id
	 * @param user user CPU time of all its threads, in clock ticks
	 * @param system system CPU time of all its threads, in clock ticks
	 * @param reapedChildren user plus system CPU time of its children that ended and were
	 * waited for, in clock ticks (a PostgreSQL server's ended backends)
	 * @param startTime when it started, in clock ticks since boot; with the pid it
	 * identifies the process even if the pid is reused
	 */
	record ProcStat(long pid, long ppid, long user, long system, long reapedChildren, long startTime) {

		/**
		 * User plus system CPU time of all its threads.
		 * @return clock ticks
		 */
		long ticks() {
			return this.user + this.system;
		}

	}

	/**
	 * The aggregate line of {@code /proc/stat}.
	 *
	 * @param total all CPU time of all cores, in clock ticks
	 * @param busy the part this machine's own work used: neither idle, nor waiting for
	 * I/O, nor stolen
	 * @param steal the part the hypervisor gave to other machines while this one had work
	 * to run: CPU the machine wanted and did not get, which no process of it used
	 * @param cores the number of online cores
	 */
	record MachineTimes(long total, long busy, long steal, int cores) {

	}

	/**
	 * A consistent view of the machine and its processes at one moment.
	 *
	 * @param nanos {@link System#nanoTime()} when it was taken
	 * @param uptimeTicks time since boot, in clock ticks, when it was taken
	 * @param machine the machine's CPU counters
	 * @param processes every process by pid
	 */
	record Snapshot(long nanos, long uptimeTicks, MachineTimes machine, Map<Long, ProcStat> processes) {

		boolean isRunning(long pid) {
			return this.processes.containsKey(pid);
		}

		Set<Long> processTree(long root) {
			if (!this.processes.containsKey(root)) {
				return Set.of();
			}
			Map<Long, List<Long>> children = new HashMap<>();
			for (ProcStat stat : this.processes.values()) {
				children.computeIfAbsent(stat.ppid(), (key) -> new ArrayList<>()).add(stat.pid());
			}
			Set<Long> tree = new LinkedHashSet<>();
			Deque<Long> pending = new ArrayDeque<>();
			pending.add(root);
			while (!pending.isEmpty()) {
				long pid = pending.poll();
				if (tree.add(pid)) {
					pending.addAll(children.getOrDefault(pid, List.of()));
				}
			}
			return tree;
		}

		/**
		 * CPU ticks the processes used since the earlier snapshot. A process that started
		 * after it counts in full; one that exited in between is lost.
		 */
		long ticksSince(Snapshot earlier, Set<Long> pids) {
			long ticks = 0;
			for (long pid : pids) {
				ProcStat now = this.processes.get(pid);
				if (now == null) {
					continue;
				}
				ProcStat before = earlier.processes.get(pid);
				if (before != null && before.startTime() == now.startTime()) {
					ticks += Math.max(0, now.ticks() - before.ticks());
				}
				else if (now.startTime() >= earlier.uptimeTicks() - 1) {
					ticks += now.ticks();
				}
			}
			return ticks;
		}

	}

	private static final class ClockTicks {

		static final long VALUE = ask();

		private static long ask() {
			try {
				Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
				byte[] out = getconf.getInputStream().readAllBytes();
				if (getconf.waitFor(2, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
					long ticks = Long.parseLong(new String(out, StandardCharsets.US_ASCII).strip());
					if (ticks > 0) {
						return ticks;
					}
				}
			}
			catch (IOException | RuntimeException ex) {
				// No getconf: every Linux architecture we run on uses 100.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return 100;
		}

	}

}
