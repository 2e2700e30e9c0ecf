package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.highload.profiles.gatling.monitor.Cgroups.CpuCounter;
import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.Docker.Container;

/**
 * The CPU of the service's container and of every other container of its Docker Compose
 * project (the PostgreSQL nodes, and whatever else the project runs), each from its
 * cgroup, in % of one core. Each container is a series named after its compose service:
 * {@code app}, {@code primary}, {@code replica1} and {@code replica2} for
 * docker-compose.yml; {@code app1}, {@code app2}, {@code lb}, {@code pg1} and the others
 * for docker-compose.ha.yml. A container that went away (stopped, or recreated under a
 * new id) is looked for again every few seconds under the same name.
 */
final class ContainerCpu {

	/** How long to wait between searches for containers that went away. */
	private static final long REDISCOVERY = TimeUnit.SECONDS.toNanos(5);

	/** The sampler's own series, which no container may take. */
	private static final Set<String> RESERVED = Set.of(Series.MACHINE.label(), Series.STEAL.label(),
			Series.GATLING.label());

	private final String project;

	private final Map<Series, Tracked> tracked = new LinkedHashMap<>();

	private final Supplier<List<Container>> rediscover;

	private final LongSupplier clock;

	private long nextSearch;

	/**
	 * Containers already found.
	 * @param project the Compose project, empty outside Compose
	 * @param tracked each container under its series
	 * @param rediscover the project's containers as they are now, asked when one went
	 * away
	 * @param clock nanoseconds, {@link System#nanoTime()} but in tests; the one the
	 * tracked containers read
	 */
	ContainerCpu(String project, Map<Series, Tracked> tracked, Supplier<List<Container>> rediscover,
			LongSupplier clock) {
		this.project = project;
		this.tracked.putAll(tracked);
		this.rediscover = rediscover;
		this.clock = clock;
		this.nextSearch = clock.getAsLong();
	}

	/**
	 * The containers of the service's container's Compose project, each with its cgroup's
	 * counter. Without a {@code docker} command that answers, the service's container
	 * alone, named {@code service}, from its process's cgroup.
	 * @param serviceId the full id of the container that serves the target
	 * @param servicePid a process in it, 0 when none is known
	 * @param how how it was found, for the summary
	 * @return the containers, or empty when the service's container has no readable
	 * cgroup counter
	 */
	static Optional<ContainerCpu> of(String serviceId, long servicePid, String how) {
		LongSupplier clock = System::nanoTime;
		List<Container> containers = Docker.withProject(serviceId);
		Optional<Container> service = containers.stream().filter((c) -> c.id().equals(serviceId)).findFirst();
		Map<Series, Tracked> tracked = new LinkedHashMap<>();
		if (service.isEmpty()) {
			Optional<CpuCounter> counter = (servicePid > 0) ? Cgroups.cpuCounterOf(servicePid) : Optional.empty();
			if (counter.isEmpty()) {
				return Optional.empty();
			}
			String source = "container " + serviceId.substring(0, Math.min(12, serviceId.length()))
					+ " (no docker command to name it), " + counter.get().version().label() + ", " + how;
			tracked.put(Series.SERVICE, new Tracked(source, counter.get(), clock));
			return Optional.of(new ContainerCpu("", tracked, List::of, clock));
		}
		Map<Series, Container> named = named(containers);
		for (Map.Entry<Series, Container> entry : named.entrySet()) {
			Container container = entry.getValue();
			Optional<CpuCounter> counter = Cgroups.cpuCounterOf(container.pid());
			String source = "container " + container.name() + " (" + container.shortId() + "), "
					+ counter.map((c) -> c.version().label()).orElse("no cgroup found")
					+ (container.id().equals(serviceId) ? ", " + how : "");
			tracked.put(entry.getKey(), new Tracked(source, counter.orElse(null), clock));
		}
		boolean serviceReadable = named.entrySet()
			.stream()
			.anyMatch((e) -> e.getValue().id().equals(serviceId) && tracked.get(e.getKey()).counter != null);
		if (!serviceReadable) {
			return Optional.empty();
		}
		String project = service.get().project();
		return Optional.of(new ContainerCpu(project, tracked,
				project.isEmpty() ? () -> Docker.withProject(serviceId) : () -> Docker.project(project), clock));
	}

	/**
	 * Names each container after its compose service, numbered where a service has
	 * several, or after the container itself outside Compose; sorted by name.
	 * @param containers the containers
	 * @return each container under its series
	 */
	static Map<Series, Container> named(List<Container> containers) {
		Map<String, Integer> perService = new HashMap<>();
		for (Container container : containers) {
			perService.merge(container.service(), 1, Integer::sum);
		}
		List<Map.Entry<String, Container>> labelled = new ArrayList<>();
		for (Container container : containers) {
			String label = container.service().isEmpty() ? container.name() : (perService.get(container.service()) > 1)
					? container.service() + "-" + container.number() : container.service();
			labelled.add(Map.entry(RESERVED.contains(label) ? "container-" + label : label, container));
		}
		labelled.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
		Map<Series, Container> named = new LinkedHashMap<>();
		for (Map.Entry<String, Container> entry : labelled) {
			named.putIfAbsent(new Series(entry.getKey()), entry.getValue());
		}
		return named;
	}

	/**
	 * The Compose project, for the chart's title.
	 * @return the project's name, empty outside Compose
	 */
	String project() {
		return this.project;
	}

	/**
	 * One series per container, in order of their names.
	 * @return the series
	 */
	List<Series> series() {
		return List.copyOf(this.tracked.keySet());
	}

	/**
	 * Where each series comes from: the container's name and id, its cgroup version, and
	 * how the service's own container was found.
	 * @return the source of every series
	 */
	Map<Series, String> sources() {
		Map<Series, String> sources = new LinkedHashMap<>();
		this.tracked.forEach((series, one) -> sources.put(series, one.source));
		return sources;
	}

	/**
	 * Each container's CPU since the previous call (or since it was found).
	 * @return % of one core by series; a container that could not be read has no entry
	 */
	Map<Series, Double> sample() {
		Map<Series, Double> values = new LinkedHashMap<>();
		boolean missing = false;
		for (Map.Entry<Series, Tracked> entry : this.tracked.entrySet()) {
			Tracked one = entry.getValue();
			Optional<Double> percent = one.percentSinceLastReading();
			if (percent.isPresent()) {
				values.put(entry.getKey(), percent.get());
			}
			else {
				missing = true;
			}
		}
		long now = this.clock.getAsLong();
		if (missing && now - this.nextSearch >= 0) {
			this.nextSearch = now + REDISCOVERY;
			findAgain();
		}
		return values;
	}

	/** Counters for the containers that went away, from the project as it is now. */
	private void findAgain() {
		Map<Series, Container> now = named(this.rediscover.get());
		this.tracked.forEach((series, one) -> {
			Container container = now.get(series);
			if (!one.readable && container != null) {
				Cgroups.cpuCounterOf(container.pid()).ifPresent((counter) -> {
					one.follow(counter);
					one.source = "container " + container.name() + " (" + container.shortId() + "), "
							+ counter.version().label() + ", found again";
				});
			}
		});
	}

	/**
	 * One container's counter and its previous reading. Each reading is timed by itself,
	 * right after the counter is read, so that the time docker takes to answer or the
	 * other containers take to be read does not count.
	 */
	static final class Tracked {

		private final LongSupplier clock;

		private String source;

		private CpuCounter counter;

		private long lastUsage = -1;

		private long lastNanos;

		private boolean readable;

		Tracked(String source, CpuCounter counter, LongSupplier clock) {
			this.source = source;
			this.clock = clock;
			if (counter != null) {
				follow(counter);
			}
		}

		/** Reads a (new) counter: the reading the next one is measured from. */
		void follow(CpuCounter counter) {
			this.counter = counter;
			try {
				this.lastUsage = counter.nanos();
				this.readable = true;
			}
			catch (IOException ex) {
				this.lastUsage = -1;
				this.readable = false;
			}
			this.lastNanos = this.clock.getAsLong();
		}

		/**
		 * % of one core since the last reading; empty when the counter cannot be read now
		 * or could not be then.
		 */
		Optional<Double> percentSinceLastReading() {
			if (this.counter == null) {
				return Optional.empty();
			}
			long usage;
			try {
				usage = this.counter.nanos();
			}
			catch (IOException ex) {
				// The container stopped, or was recreated under a new id and cgroup.
				this.readable = false;
				return Optional.empty();
			}
			long nanos = this.clock.getAsLong();
			long before = this.lastUsage;
			long elapsed = nanos - this.lastNanos;
			this.lastUsage = usage;
			this.lastNanos = nanos;
			this.readable = true;
			if (before < 0 || elapsed <= 0) {
				return Optional.empty();
			}
			// A restarted container's cgroup counts again from zero.
			long used = (usage >= before) ? usage - before : usage;
			return Optional.of(100.0 * used / elapsed);
		}

	}

}
