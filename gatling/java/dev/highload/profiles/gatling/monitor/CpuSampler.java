package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.highload.profiles.gatling.monitor.ProcFs.Snapshot;

/**
 * Samples, once a second, the CPU used by the whole machine, the service JVM, each
 * PostgreSQL node of the local cluster (its postmaster and all its descendants) and the
 * load generator's own JVM, in % of one core: two busy cores are 200 %.
 * <p>
 * Processes are found without pids typed by hand: the service is the Java process that
 * listens on the base URL's port, or else a Java process whose command line names the
 * service; each node is named by its {@code postmaster.pid}, re-read every second so that
 * a restarted node is followed. When the service is not found on this machine, its CPU
 * comes from its Actuator instead.
 * <p>
 * When the service runs in a Docker container (its process's cgroup names one, or a
 * container publishes the port), the sampler records every container of its Compose
 * project instead of the service and the nodes, each from its cgroup and under its
 * compose service's name ({@link ContainerCpu}): {@code app}, {@code primary},
 * {@code replica1} and {@code replica2} for docker-compose.yml. {@link #stop()} writes a
 * CSV, a PNG chart and an HTML report into the output directory, in either case.
 * <pre class="code">
 * CpuSampler sampler = CpuSampler.start(CpuSampler.Settings.fromSystemProperties("get-user", Path.of("out")));
 * // ... the load ...
 * System.out.println(sampler.stop().summary());
 * </pre>
 */
public final class CpuSampler {

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	/** How long to wait between searches for a service that went away. */
	private static final long REDISCOVERY = TimeUnit.SECONDS.toNanos(5);

	/**
	 * The service's command line when no process holds its port: the local run's main
	 * class, the production main class, or the jar's name.
	 */
	private static final List<String> SERVICE_MARKERS = List.of("dev.highload.profiles.LocalProfilesApplication",
			"dev.highload.profiles.ProfilesApplication", "user-profiles");

	private final Settings settings;

	private final long ticksPerSecond = ProcFs.clockTicksPerSecond();

	private final long selfPid = ProcessHandle.current().pid();

	private final CountDownLatch stopping = new CountDownLatch(1);

	private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());

	private final Map<Series, String> sources = Collections.synchronizedMap(new HashMap<>());

	private final int servicePort;

	/**
	 * The columns of this run: the local run's, or the machine, containers and Gatling.
	 */
	private final List<Series> series;

	private final ActuatorCpu actuator;

	private final ContainerCpu containers;

	private final long startNanos;

	private Snapshot previous;

	private long servicePid;

	private long serviceStartTime;

	private long nextServiceSearch;

	private Thread thread;

	private Result result;

	private CpuSampler(Settings settings) throws IOException {
		this.settings = settings;
		URI uri = URI.create(settings.baseUrl());
		this.servicePort = (uri.getPort() != -1) ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
		this.previous = ProcFs.snapshot();
		this.startNanos = this.previous.nanos();
		this.sources.put(Series.MACHINE, "procfs /proc/stat, without steal");
		this.sources.put(Series.STEAL, "procfs /proc/stat, steal");
		this.sources.put(Series.GATLING, "procfs pid " + this.selfPid);
		boolean local = isThisMachine(uri.getHost());
		Optional<ServiceProcess> process = local ? locateService() : Optional.empty();
		this.containers = local ? findContainers(process).orElse(null) : null;
		if (this.containers != null) {
			this.actuator = null;
			List<Series> columns = new ArrayList<>(List.of(Series.MACHINE, Series.STEAL));
			columns.addAll(this.containers.series());
			columns.add(Series.GATLING);
			this.series = List.copyOf(columns);
			this.sources.putAll(this.containers.sources());
			return;
		}
		this.series = Series.LOCAL;
		if (process.isPresent() && follow(process.get(), this.previous)) {
			this.actuator = null;
		}
		else {
			this.actuator = new ActuatorCpu(settings.managementUrl());
			this.sources.put(Series.SERVICE, "actuator");
		}
	}

	/**
	 * Finds the processes and starts sampling on a daemon thread.
	 * @param settings where the service and the cluster are, and where to write
	 * @return the running sampler
	 * @throws UncheckedIOException if {@code /proc} cannot be read (not Linux)
	 */
	public static CpuSampler start(Settings settings) {
		CpuSampler sampler;
		try {
			sampler = new CpuSampler(settings);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("CPU sampling needs Linux /proc", ex);
		}
		sampler.thread = new Thread(sampler::run, "cpu-sampler-" + settings.name());
		sampler.thread.setDaemon(true);
		sampler.thread.start();
		return sampler;
	}

	/**
	 * Stops sampling and writes {@code <name>-cpu.csv}, {@code <name>-cpu.png} and
	 * {@code <name>-cpu.html} into the output directory. The last, incomplete second is
	 * not sampled. Calling it again returns the same result without writing again.
	 * @return the samples and per-series statistics
	 * @throws UncheckedIOException if a file cannot be written
	 */
	public synchronized Result stop() {
		if (this.result != null) {
			return this.result;
		}
		this.stopping.countDown();
		try {
			// An Actuator request in flight can take up to its one-second timeout.
			this.thread.join(TimeUnit.SECONDS.toMillis(5));
			if (this.thread.isAlive()) {
				this.thread.interrupt();
				this.thread.join(TimeUnit.SECONDS.toMillis(2));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		List<Sample> taken;
		synchronized (this.samples) {
			taken = List.copyOf(this.samples);
		}
		List<SeriesStats> stats = new ArrayList<>();
		for (Series series : this.series) {
			stats.add(SeriesStats.of(series, this.sources.getOrDefault(series, "not found"), taken));
		}
		Path dir = this.settings.outputDir();
		String project = (this.containers != null) ? this.containers.project() : "";
		this.result = new Result(this.settings.name(), project, this.previous.machine().cores(), taken, stats,
				Result.files(dir, this.settings.name()));
		try {
			this.result.writeTo(dir);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write the CPU report into " + dir, ex);
		}
		return this.result;
	}

	private void run() {
		long tick = 1;
		while (true) {
			long wait = this.startNanos + tick * SECOND - System.nanoTime();
			try {
				if (this.stopping.await(Math.max(wait, 0), TimeUnit.NANOSECONDS)) {
					return;
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			try {
				this.samples.add(sample(tick));
			}
			catch (IOException | RuntimeException ex) {
				// One bad read must not end the run: the second is skipped.
			}
			// Seconds the sampler could not keep up with are skipped, not bunched.
			long elapsed = (System.nanoTime() - this.startNanos) / SECOND;
			tick = Math.max(tick + 1, elapsed + 1);
		}
	}

	private Sample sample(long tick) throws IOException {
		Snapshot now = ProcFs.snapshot();
		Snapshot before = this.previous;
		double seconds = (now.nanos() - before.nanos()) / (double) SECOND;
		Map<Series, Double> values = new HashMap<>();
		long total = now.machine().total() - before.machine().total();
		long busy = now.machine().busy() - before.machine().busy();
		long steal = now.machine().steal() - before.machine().steal();
		values.put(Series.MACHINE, (total > 0) ? 100.0 * now.machine().cores() * busy / total : 0.0);
		values.put(Series.STEAL, (total > 0) ? 100.0 * now.machine().cores() * steal / total : 0.0);
		values.put(Series.GATLING, percent(now.ticksSince(before, Set.of(this.selfPid)), seconds));
		if (this.containers != null) {
			values.putAll(this.containers.sample());
			this.sources.putAll(this.containers.sources());
			this.previous = now;
			return new Sample(tick, values);
		}
		if (this.actuator == null) {
			if (isServiceRunning(now) || searchServiceAgain(now)) {
				values.put(Series.SERVICE, percent(now.ticksSince(before, Set.of(this.servicePid)), seconds));
			}
		}
		else {
			OptionalDouble service = this.actuator.percentOfOneCore();
			if (service.isPresent()) {
				values.put(Series.SERVICE, service.getAsDouble());
				this.sources.put(Series.SERVICE, "actuator, " + this.actuator.cpuCount() + " cores there");
			}
		}
		for (Series node : List.of(Series.PRIMARY, Series.REPLICA1, Series.REPLICA2)) {
			OptionalLong postmaster = ProcFs.postmasterPid(this.settings.clusterDir().resolve(node.label()));
			if (postmaster.isPresent() && now.isRunning(postmaster.getAsLong())) {
				Set<Long> tree = now.processTree(postmaster.getAsLong());
				values.put(node, percent(now.ticksSince(before, tree), seconds));
				this.sources.put(node,
						"procfs pid " + postmaster.getAsLong() + " + " + (tree.size() - 1) + " children");
			}
		}
		this.previous = now;
		return new Sample(tick, values);
	}

	private double percent(long ticks, double seconds) {
		return (seconds > 0) ? 100.0 * ticks / this.ticksPerSecond / seconds : 0.0;
	}

	private boolean isServiceRunning(Snapshot now) {
		ProcFs.ProcStat stat = now.processes().get(this.servicePid);
		return stat != null && stat.startTime() == this.serviceStartTime;
	}

	private boolean searchServiceAgain(Snapshot now) {
		if (now.nanos() < this.nextServiceSearch) {
			return false;
		}
		this.nextServiceSearch = now.nanos() + REDISCOVERY;
		return findService(now);
	}

	private boolean findService(Snapshot now) {
		Optional<ServiceProcess> process = locateService();
		return process.isPresent() && follow(process.get(), now);
	}

	/**
	 * The service's process: the Java process listening on its port, or else a Java
	 * process whose command line names the service.
	 */
	private Optional<ServiceProcess> locateService() {
		OptionalLong pid = ProcFs.listeningPid(this.servicePort);
		// A port published by Docker is held by docker-proxy, not by the service: only a
		// Java process is taken for the service.
		if (pid.isPresent() && ProcFs.isJavaProcess(pid.getAsLong())) {
			return Optional.of(new ServiceProcess(pid.getAsLong(), true, "listening on port " + this.servicePort));
		}
		pid = ProcFs.javaProcessWithCommandLine(SERVICE_MARKERS);
		return pid.isPresent() ? Optional.of(new ServiceProcess(pid.getAsLong(), false, "by command line"))
				: Optional.empty();
	}

	private boolean follow(ServiceProcess process, Snapshot now) {
		ProcFs.ProcStat stat = now.processes().get(process.pid());
		if (stat == null) {
			return false;
		}
		this.servicePid = stat.pid();
		this.serviceStartTime = stat.startTime();
		this.sources.put(Series.SERVICE, "procfs pid " + stat.pid() + ", " + process.how());
		return true;
	}

	/**
	 * The containers to record when the service runs in one: the container of the process
	 * that listens on the port (host networking), the container that publishes the port
	 * (Docker's port publishing, with or without docker-proxy), or the container of the
	 * Java process found by its command line.
	 */
	private Optional<ContainerCpu> findContainers(Optional<ServiceProcess> process) {
		if (process.isPresent() && process.get().listening()) {
			Optional<String> id = Cgroups.containerIdOf(process.get().pid());
			return id.isEmpty() ? Optional.empty()
					: ContainerCpu.of(id.get(), process.get().pid(), "listens on port " + this.servicePort);
		}
		Optional<String> published = Docker.publishing(this.servicePort);
		if (published.isPresent()) {
			return ContainerCpu.of(published.get(), 0, "publishes port " + this.servicePort);
		}
		Optional<String> id = process.flatMap((found) -> Cgroups.containerIdOf(found.pid()));
		return id.isEmpty() ? Optional.empty()
				: ContainerCpu.of(id.get(), process.get().pid(), "its JVM found by command line");
	}

	/** Whether the host names this machine, so that its processes are in /proc. */
	private static boolean isThisMachine(String host) {
		if (host == null) {
			return false;
		}
		try {
			for (InetAddress address : InetAddress.getAllByName(host)) {
				if (address.isLoopbackAddress() || address.isAnyLocalAddress()
						|| NetworkInterface.getByInetAddress(address) != null) {
					return true;
				}
			}
		}
		catch (UnknownHostException | SocketException ex) {
			// Unresolvable here: certainly not a local process we could see.
		}
		return false;
	}

	/**
	 * The service's process as {@link #locateService()} found it.
	 *
	 * @param pid the process
	 * @param listening whether it holds the port, or was found by its command line
	 * @param how how it was found, for the summary
	 */
	private record ServiceProcess(long pid, boolean listening, String how) {

	}

	/**
	 * A line of the chart and a column of the CSV. The local run's are the constants
	 * here; when the service runs in Docker, every container of its Compose project is
	 * one, named after its compose service ({@code app}, {@code primary}, ...), between
	 * {@link #STEAL} and {@link #GATLING}.
	 *
	 * @param label the name in the CSV header, the legend and the summary
	 */
	public record Series(String label) {

		/**
		 * The whole machine's own work, up to 100 % times its core count: user, system
		 * and interrupt time, not idle, not I/O wait, not steal.
		 */
		public static final Series MACHINE = new Series("machine");

		/**
		 * CPU time the hypervisor gave to other guests while this machine had work to
		 * run. Not part of {@link #MACHINE}: no process here used it, but a high figure
		 * means the machine ran slower than its cores suggest.
		 */
		public static final Series STEAL = new Series("steal");

		/** The service JVM. */
		public static final Series SERVICE = new Series("service");

		/** The PostgreSQL primary: postmaster, backends, walsenders and helpers. */
		public static final Series PRIMARY = new Series("primary");

		/** The first replica: postmaster, walreceiver, startup process and backends. */
		public static final Series REPLICA1 = new Series("replica1");

		/** The second replica. */
		public static final Series REPLICA2 = new Series("replica2");

		/** The JVM running the sampler, normally Gatling's. */
		public static final Series GATLING = new Series("gatling");

		/**
		 * The local run's series, in their order; the last three name the cluster's
		 * directories.
		 */
		static final List<Series> LOCAL = List.of(MACHINE, STEAL, SERVICE, PRIMARY, REPLICA1, REPLICA2, GATLING);

		public Series {
			Objects.requireNonNull(label, "label");
			if (label.isBlank() || label.contains(",")) {
				throw new IllegalArgumentException("A series needs a label without commas: '" + label + "'");
			}
		}

	}

	/**
	 * Where to look and where to write.
	 *
	 * @param baseUrl the service's base URL; its port finds the service's process
	 * @param managementUrl the service's Actuator base URL (its management port), asked
	 * for the service's CPU when the process is not on this machine
	 * @param clusterDir the directory holding the {@code primary}, {@code replica1} and
	 * {@code replica2} data directories of the local run
	 * @param outputDir where {@link CpuSampler#stop()} writes its files
	 * @param name the run's name, which starts every file name
	 */
	public record Settings(String baseUrl, String managementUrl, Path clusterDir, Path outputDir, String name) {

		public Settings {
			Objects.requireNonNull(baseUrl, "baseUrl");
			Objects.requireNonNull(managementUrl, "managementUrl");
			URI.create(managementUrl);
			Objects.requireNonNull(clusterDir, "clusterDir");
			Objects.requireNonNull(outputDir, "outputDir");
			Objects.requireNonNull(name, "name");
			URI.create(baseUrl);
			if (name.isBlank()) {
				throw new IllegalArgumentException("name must not be blank");
			}
		}

		/**
		 * Settings from {@code -DbaseUrl} (default {@code http://127.0.0.1:8080}),
		 * {@code -DmanagementUrl} (default: the base URL's host on port 8081, the
		 * service's default management port), {@code -DclusterDir} (default
		 * {@code .data/cluster}, where {@code ./mvnw spring-boot:run} keeps its nodes;
		 * not read when the service runs in a container) and {@code -DmonitorDir};
		 * relative paths are resolved against the working directory, which the
		 * gatling-maven-plugin (pom.xml) makes the repository root.
		 * @param name the run's name, which starts every file name
		 * @param outputDir where to write when {@code -DmonitorDir} is not set
		 * @return the settings
		 */
		public static Settings fromSystemProperties(String name, Path outputDir) {
			String baseUrl = System.getProperty("baseUrl", "http://127.0.0.1:8080");
			return new Settings(baseUrl, System.getProperty("managementUrl", defaultManagementUrl(baseUrl)),
					Path.of(System.getProperty("clusterDir", ".data/cluster")),
					Path.of(System.getProperty("monitorDir", outputDir.toString())), name);
		}

		private static String defaultManagementUrl(String baseUrl) {
			URI uri = URI.create(baseUrl);
			return uri.getScheme() + "://" + uri.getHost() + ":8081";
		}

	}

	/**
	 * One second of CPU use.
	 *
	 * @param second the end of the second, counted from the start: the first sample
	 * covers 0 to 1
	 * @param values % of one core by series; a series that was not found has no entry
	 */
	public record Sample(long second, Map<Series, Double> values) {

		public Sample {
			values = Map.copyOf(values);
		}

		/**
		 * The value of one series.
		 * @param series which series
		 * @return % of one core, or empty when the series was not found in that second
		 */
		public OptionalDouble value(Series series) {
			Double value = this.values.get(series);
			return (value != null) ? OptionalDouble.of(value) : OptionalDouble.empty();
		}

	}

	/**
	 * Average and maximum of one series over the run.
	 *
	 * @param series the series
	 * @param source where the values came from: {@code procfs} with the pid last seen,
	 * {@code actuator}, or {@code not found}
	 * @param samples how many seconds had a value
	 * @param average the mean % of one core, NaN without samples
	 * @param max the highest % of one core, NaN without samples
	 */
	public record SeriesStats(Series series, String source, int samples, double average, double max) {

		static SeriesStats of(Series series, String source, List<Sample> samples) {
			int count = 0;
			double sum = 0;
			double max = Double.NaN;
			for (Sample sample : samples) {
				OptionalDouble value = sample.value(series);
				if (value.isPresent()) {
					count++;
					sum += value.getAsDouble();
					max = (count == 1) ? value.getAsDouble() : Math.max(max, value.getAsDouble());
				}
			}
			return new SeriesStats(series, source, count, (count > 0) ? sum / count : Double.NaN, max);
		}

		/**
		 * The CPU time the series used over the seconds it was sampled: its average share
		 * of a core times those seconds. Divided by the requests of the run, the figure
		 * that compares runs at different rates.
		 * @return seconds of CPU, NaN without samples
		 */
		public double cpuSeconds() {
			return this.average / 100 * this.samples;
		}

		/**
		 * Whether the series had any value.
		 * @return {@code true} if at least one second had a value
		 */
		public boolean present() {
			return this.samples > 0;
		}

	}

	/**
	 * What a run measured.
	 *
	 * @param name the run's name
	 * @param project the Compose project whose containers were recorded, empty when none
	 * were
	 * @param machineCores this machine's online cores, so 100 % times this is all of it
	 * @param samples one per second, in order
	 * @param stats one per series of the run, in the order of its columns
	 * @param files the CSV, PNG and HTML that {@link CpuSampler#stop()} wrote into the
	 * output directory
	 */
	public record Result(String name, String project, int machineCores, List<Sample> samples, List<SeriesStats> stats,
			List<Path> files) {

		public Result {
			Objects.requireNonNull(project, "project");
			samples = List.copyOf(samples);
			stats = List.copyOf(stats);
			files = List.copyOf(files);
		}

		/**
		 * Writes the CSV, PNG and HTML report (again) into another directory, for example
		 * the Gatling report folder of the run, creating it if needed.
		 * @param dir the directory
		 * @return the files written: CSV, PNG and HTML
		 * @throws IOException if a file cannot be written
		 */
		public List<Path> writeTo(Path dir) throws IOException {
			List<Path> written = files(dir, this.name);
			CpuReport.write(this, written.get(0), written.get(1), written.get(2));
			return written;
		}

		static List<Path> files(Path dir, String name) {
			String base = name.replaceAll("[^A-Za-z0-9._-]", "_") + "-cpu";
			return List.of(dir.resolve(base + ".csv"), dir.resolve(base + ".png"), dir.resolve(base + ".html"));
		}

		/**
		 * The statistics of one series.
		 * @param series which series
		 * @return its average, maximum and source; no samples and the source
		 * {@code not recorded} for a series this run did not have
		 */
		public SeriesStats stats(Series series) {
			return this.stats.stream()
				.filter((one) -> one.series().equals(series))
				.findFirst()
				.orElseGet(() -> SeriesStats.of(series, "not recorded", List.of()));
		}

		/**
		 * What the report is of: the run's name, and the Compose project whose containers
		 * it recorded.
		 * @return the run's name, with the project when there is one
		 */
		public String title() {
			return this.project.isEmpty() ? this.name : this.name + ", containers of compose project " + this.project;
		}

		/**
		 * The run's series, in the order of its CSV columns.
		 * @return the series
		 */
		public List<Series> series() {
			return this.stats.stream().map(SeriesStats::series).toList();
		}

		/**
		 * The statistics as an aligned plain-text table, for the console.
		 * @return the table, several lines
		 */
		public String summary() {
			StringBuilder text = new StringBuilder();
			text.append(String.format(Locale.ROOT,
					"CPU of %s: %d samples of 1 s, %% of one core (this machine: %d cores, %d %% when all are busy)%n",
					title(), this.samples.size(), this.machineCores, 100 * this.machineCores));
			int width = "source".length();
			for (SeriesStats one : this.stats) {
				width = Math.max(width, one.source().length());
			}
			String row = "%-9s  %-" + width + "s  %7s  %7s  %9s%n";
			text.append(String.format(Locale.ROOT, row, "series", "source", "avg %", "max %", "CPU s"));
			for (SeriesStats one : this.stats) {
				text.append(String.format(Locale.ROOT, row, one.series().label(), one.source(),
						CpuReport.decimal(one.average()), CpuReport.decimal(one.max()),
						Double.isFinite(one.cpuSeconds()) ? String.format(Locale.ROOT, "%.2f", one.cpuSeconds())
								: "-"));
			}
			return text.toString();
		}

	}

}
