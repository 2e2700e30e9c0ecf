package dev.highload.profiles.gatling;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import dev.highload.profiles.gatling.monitor.CpuSampler;
import io.gatling.javaapi.core.Assertion;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.http.HttpDsl.http;

/**
 * What every simulation shares: the HTTP protocol, the arrival profile, and CPU sampling
 * of the machine, the service, each PostgreSQL node (or each container of the service's
 * Compose project) and Gatling itself for the length of the run. At the end it prints one
 * summary (latency per request type, CPU per process) and writes it, with the CPU samples
 * as CSV and charts, into the run's report folder.
 */
abstract class MonitoredSimulation extends Simulation {

	/** Gatling's results folder, as the gatling-maven-plugin (pom.xml) passes it on. */
	private static final Path RESULTS = Path.of(System.getProperty("gatling.resultsFolder", "target/gatling"));

	final LoadConfig config;

	private final String name;

	/**
	 * How long Gatling warms its own JVM on a stub before the service's first request,
	 * {@code -DgeneratorWarmUp} in seconds (default 0, none): see
	 * {@link GeneratorWarmUp}. Only the simulations that build their populations with
	 * {@link #withGeneratorWarmUp} take it.
	 */
	final Duration generatorWarmUp = Duration.ofSeconds(Long.getLong("generatorWarmUp", 0));

	private GeneratorWarmUp stub;

	private volatile CpuSampler sampler;

	private Thread samplerStart;

	MonitoredSimulation(LoadConfig config) {
		this.config = config;
		this.name = getClass().getSimpleName().toLowerCase(Locale.ROOT) + "-" + config.users();
	}

	/**
	 * The measured populations, after the generator's own warm-up when
	 * {@code -DgeneratorWarmUp} is set: its users, on a stub, at this run's ramp and
	 * rate, their requests silent (in no statistics). The measured populations' arrivals
	 * must start with {@link #afterGeneratorWarmUp}.
	 */
	List<PopulationBuilder> withGeneratorWarmUp(ChainBuilder chain, PopulationBuilder... measured) {
		List<PopulationBuilder> populations = new ArrayList<>(List.of(measured));
		if (!this.generatorWarmUp.isZero()) {
			this.stub = GeneratorWarmUp.start();
			populations.add(this.stub.users(chain, protocol(), arrivals(this.generatorWarmUp)));
		}
		return populations;
	}

	/** The steps, after the generator's warm-up when there is one. */
	OpenInjectionStep[] afterGeneratorWarmUp(OpenInjectionStep... steps) {
		if (this.generatorWarmUp.isZero()) {
			return steps;
		}
		OpenInjectionStep[] delayed = new OpenInjectionStep[steps.length + 1];
		delayed[0] = nothingFor(this.generatorWarmUp);
		System.arraycopy(steps, 0, delayed, 1, steps.length);
		return delayed;
	}

	/**
	 * Every virtual user opens its own connections, as a new client would. Loopback
	 * targets are reached from many source addresses (see
	 * {@link LoadConfig#localAddresses()}).
	 */
	HttpProtocolBuilder protocol() {
		HttpProtocolBuilder protocol = http.baseUrl(this.config.baseUrl())
			.acceptHeader("application/json")
			.userAgentHeader("gatling-user-profiles")
			// Gatling's default warm-up request goes to the internet.
			.disableWarmUp();
		return this.config.loopbackTarget() ? protocol.localAddresses(this.config.localAddresses()) : protocol;
	}

	/**
	 * A ramp to the constant arrival rate, then that rate to the end of the window.
	 */
	OpenInjectionStep[] arrivals() {
		return arrivals(this.config.window());
	}

	/**
	 * This run's ramp to its constant arrival rate, then that rate, for {@code length}. A
	 * ramp as long as {@code length} or longer makes all of it a ramp: Gatling refuses a
	 * constant step of zero length.
	 */
	OpenInjectionStep[] arrivals(Duration length) {
		double rate = this.config.rate();
		Duration ramp = this.config.ramp();
		if (ramp.isZero()) {
			return new OpenInjectionStep[] { constantUsersPerSec(rate).during(length) };
		}
		if (ramp.compareTo(length) >= 0) {
			return new OpenInjectionStep[] { rampUsersPerSec(rate / 100).to(rate).during(length) };
		}
		return new OpenInjectionStep[] { rampUsersPerSec(rate / 100).to(rate).during(ramp),
				constantUsersPerSec(rate).during(length.minus(ramp)) };
	}

	/**
	 * p99 within {@code -Dp99} and failed requests within {@code -DmaxFailed}, over all
	 * requests.
	 */
	Assertion[] standardAssertions() {
		return new Assertion[] { global().responseTime().percentile(99.0).lte(this.config.p99Millis()),
				global().failedRequests().percent().lte(this.config.maxFailedPercent()) };
	}

	@Override
	public void before() {
		System.out.printf("%s: %d users over %d s (ramp %d s, then %.1f users/s) against %s%n", this.name,
				this.config.users(), this.config.window().toSeconds(), this.config.ramp().toSeconds(),
				this.config.rate(), this.config.baseUrl());
		CpuSampler.Settings settings = CpuSampler.Settings.fromSystemProperties(this.name, RESULTS.resolve("monitor"));
		if (this.stub == null) {
			this.sampler = CpuSampler.start(settings);
			return;
		}
		// The CPU is the measured part's: sampling starts when the warm-up ends.
		System.out.printf("%s: the generator warms up on a stub for %d s first%n", this.name,
				this.generatorWarmUp.toSeconds());
		this.samplerStart = new Thread(() -> {
			try {
				Thread.sleep(this.generatorWarmUp.toMillis());
			}
			catch (InterruptedException ex) {
				// The run ended first: sample what is left.
			}
			this.sampler = CpuSampler.start(settings);
		}, "cpu-sampler-start");
		this.samplerStart.setDaemon(true);
		this.samplerStart.start();
	}

	@Override
	public void after() {
		if (this.samplerStart != null) {
			this.samplerStart.interrupt();
			try {
				this.samplerStart.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.stub != null) {
			this.stub.close();
		}
		CpuSampler.Result cpu = this.sampler.stop();
		String clients = clientSummary();
		if (this.stub != null) {
			// bench/common.py reads this line: Gatling's mean throughput spans the
			// warm-up too.
			clients = "generator warm-up: " + this.generatorWarmUp.toSeconds()
					+ " s on a stub before the first measured request, its requests in no statistics"
					+ (clients.isEmpty() ? "" : "\n" + clients);
		}
		// Latency, requests and errors are Gatling's own, printed and reported after this
		// hook; bench/load-test.py divides the CPU seconds by Gatling's request count.
		String summary = "==== " + this.name + " ====\n" + (clients.isEmpty() ? "" : clients + "\n") + cpu.summary()
				+ "\n";
		System.out.println(summary);
		Path folder = reportFolder();
		try {
			Files.writeString(folder.resolve(this.name + "-summary.txt"), summary);
			cpu.writeTo(folder);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		System.out.println("Summary and CPU CSV/charts written to " + folder.toAbsolutePath());
	}

	/**
	 * What the virtual users saw as clients ({@link ClientFigures}), for the summary
	 * before the CPU; empty when there is nothing to say.
	 */
	String clientSummary() {
		return ClientFigures.summary();
	}

	/**
	 * The folder Gatling is writing this run's report into, where the extra files belong:
	 * the newest run of this simulation in the results folder.
	 */
	private Path reportFolder() {
		String prefix = getClass().getSimpleName().toLowerCase(Locale.ROOT) + "-";
		try (Stream<Path> runs = Files.list(RESULTS)) {
			return runs.filter((p) -> Files.isDirectory(p) && p.getFileName().toString().startsWith(prefix))
				.max(Comparator.comparing((p) -> p.toFile().lastModified()))
				.orElse(RESULTS);
		}
		catch (IOException ex) {
			return RESULTS;
		}
	}

}
