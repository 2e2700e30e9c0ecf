package dev.highload.profiles.gatling.monitor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.StringJoiner;

import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.Cgroups.CpuCounter;

/**
 * The monitor's counters for the bench tools, which read the CPU of servers around runs
 * of their own (bench/common.py's {@code CpuCounters}): the same readings of
 * {@code /proc} and the cgroups that {@link CpuSampler} takes once a second during a
 * simulation, as running totals a caller subtracts.
 * <p>
 * {@code java -cp target/test-classes dev.highload.profiles.gatling.monitor.CpuCounters
 * [--cluster DIR] [--project NAME]}: each line read from standard input is a list of
 * process ids, and is answered with one line of JSON: the machine's busy and stolen CPU
 * seconds; for each process listed its user and system CPU seconds and its threads'
 * context switches ({@code null} when it is not running); with {@code --cluster}, the CPU
 * seconds of every PostgreSQL node whose data directory is under DIR, each postmaster
 * with its live and its ended children; with {@code --project}, the CPU seconds of every
 * running container of that Compose project, named as the simulations' summary names
 * them. The project's containers are asked of {@code docker} at the first reading, when
 * one of them has gone, and when a line holds the word {@code discover}, always before
 * the reading, so that the command's own CPU falls outside the interval between two
 * readings that do not ask. It exits at the end of its input.
 */
public final class CpuCounters {

	private final Path cluster;

	private final String project;

	private final double ticksPerSecond = ProcFs.clockTicksPerSecond();

	private Map<Series, CpuCounter> containers;

	CpuCounters(Path cluster, String project) {
		this.cluster = cluster;
		this.project = project;
	}

	public static void main(String[] args) throws IOException {
		Path cluster = null;
		String project = null;
		for (int i = 0; i < args.length; i++) {
			if (i + 1 < args.length && args[i].equals("--cluster")) {
				cluster = Path.of(args[++i]);
			}
			else if (i + 1 < args.length && args[i].equals("--project")) {
				project = args[++i];
			}
			else {
				System.err.println("usage: CpuCounters [--cluster DIR] [--project NAME], then process ids on stdin");
				System.exit(2);
			}
		}
		CpuCounters counters = new CpuCounters(cluster, project);
		PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			List<Long> pids = new ArrayList<>();
			boolean discover = false;
			for (String word : line.strip().split("\\s+")) {
				if (word.equals("discover")) {
					discover = true;
				}
				else if (!word.isEmpty()) {
					pids.add(Long.parseLong(word));
				}
			}
			out.println(counters.read(pids, discover));
			out.flush();
		}
	}

	/**
	 * One reading.
	 * @param pids the processes to report
	 * @param discover whether to ask {@code docker} for the project's containers anew
	 * @return the reading as a JSON object
	 */
	String read(List<Long> pids, boolean discover) throws IOException {
		if (this.project != null && (discover || this.containers == null)) {
			this.containers = discoverContainers();
		}
		ProcFs.Snapshot now = ProcFs.snapshot();
		String containers = (this.project != null) ? containers() : null;
		if (containers == null && this.project != null) {
			this.containers = discoverContainers();
			now = ProcFs.snapshot();
			containers = Objects.requireNonNullElse(containers(), "{}");
		}
		StringJoiner json = new StringJoiner(", ", "{", "}");
		json.add("\"machine\": " + seconds(now.machine().busy()));
		json.add("\"steal\": " + seconds(now.machine().steal()));
		StringJoiner processes = new StringJoiner(", ", "{", "}");
		for (long pid : pids) {
			ProcFs.ProcStat stat = now.processes().get(pid);
			processes
				.add("\"" + pid + "\": "
						+ ((stat != null) ? "{\"user\": " + seconds(stat.user()) + ", \"system\": "
								+ seconds(stat.system()) + ", \"switches\": " + ProcFs.contextSwitches(pid) + "}"
								: "null"));
		}
		json.add("\"processes\": " + processes);
		if (this.cluster != null) {
			json.add("\"postgres\": " + postgres(now));
		}
		if (containers != null) {
			json.add("\"containers\": " + containers);
		}
		return json.toString();
	}

	/**
	 * Each node under the cluster directory: its postmaster's own time, the time of the
	 * children it has reaped (backends end when a pool retires a connection) and of those
	 * still running.
	 */
	private String postgres(ProcFs.Snapshot now) throws IOException {
		StringJoiner nodes = new StringJoiner(", ", "{", "}");
		List<Path> dataDirs = new ArrayList<>();
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(this.cluster)) {
			entries.forEach(dataDirs::add);
		}
		dataDirs.sort(null);
		for (Path dataDir : dataDirs) {
			OptionalLong postmaster = ProcFs.postmasterPid(dataDir);
			if (postmaster.isEmpty() || !now.isRunning(postmaster.getAsLong())) {
				continue;
			}
			Set<Long> tree = now.processTree(postmaster.getAsLong());
			long ticks = now.processes().get(postmaster.getAsLong()).reapedChildren();
			for (long pid : tree) {
				ProcFs.ProcStat stat = now.processes().get(pid);
				ticks += (stat != null) ? stat.ticks() : 0;
			}
			nodes.add("\"" + dataDir.getFileName() + "\": " + seconds(ticks));
		}
		return nodes.toString();
	}

	private Map<Series, CpuCounter> discoverContainers() {
		Map<Series, CpuCounter> counters = new LinkedHashMap<>();
		ContainerCpu.named(Docker.project(this.project))
			.forEach((series, container) -> Cgroups.cpuCounterOf(container.pid())
				.ifPresent((counter) -> counters.put(series, counter)));
		return counters;
	}

	/** The containers' CPU seconds; null when one of them has gone since discovery. */
	private String containers() {
		StringJoiner json = new StringJoiner(", ", "{", "}");
		for (Map.Entry<Series, CpuCounter> entry : this.containers.entrySet()) {
			try {
				json.add("\"" + entry.getKey().label() + "\": " + number(entry.getValue().nanos() / 1e9));
			}
			catch (IOException ex) {
				return null;
			}
		}
		return json.toString();
	}

	private String seconds(long ticks) {
		return number(ticks / this.ticksPerSecond);
	}

	private static String number(double value) {
		return String.format(Locale.ROOT, "%.6f", value);
	}

}
