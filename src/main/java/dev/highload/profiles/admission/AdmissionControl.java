package dev.highload.profiles.admission;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import com.netflix.concurrency.limits.limiter.AbstractLimiter;
import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;
import com.netflix.concurrency.limits.limiter.LifoBlockingLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The limit on API requests running at once, and the decision for each request: run it
 * now, or refuse it. The limit is Netflix concurrency-limits' Vegas algorithm (after TCP
 * Vegas) over windows of {@code app.admission.window}. It takes the fastest window's
 * average read time as the time of a read that waits for nothing, and estimates the
 * requests that queue as {@code limit x (1 - fastest / this window's)}: the limit grows
 * while fewer than {@code queue-low} queue, falls by one each window while more than
 * {@code queue-high} do, and stays between. It moves only while the running requests fill
 * at least half of it. Every so often the library forgets the fastest time and learns it
 * again, so that a slower machine or data set does not look like queueing for ever.
 * <p>
 * With {@code app.admission.cpu.enabled} (off by default) the limit also falls, as though
 * reads were timing out, while the machine's processors are busier than {@code cpu.high}
 * (90 % of all cores, read every second; with {@code cpu.measure=pressure}, while some
 * task waited for a core that share of the last ten seconds) and the service itself uses
 * at least {@code cpu.service-share} of them (a quarter), down to {@code cpu.min-limit}
 * (2). On a saturated machine a request waits for a core before Tomcat hands it to this
 * class, in the kernel and in the thread pool, and no latency measured here shows that
 * wait; the processors' load does. It is the whole machine's, because the service's
 * database nodes, and its clients in a load test, share the cores with it.
 * <p>
 * A request over the limit may wait {@code app.admission.max-wait} (2 ms) for a place,
 * the newest first (the library's LIFO blocking limiter), so that a short burst above a
 * small limit is served rather than refused while the service has room; at most
 * {@code waiting-max} wait, and one that finds no place in time is refused.
 * <p>
 * Two partitions share the limit. Past it, a request is refused only when its own
 * partition has used up its share, so a flood of reads cannot take the room kept for
 * registrations and logins ({@code app.admission.write-share}), and reads are the ones
 * refused first. Only the reads teach the limit: a write's Argon2 hash takes tens of
 * milliseconds by design and would read as congestion; writes have their own bound, the
 * hashing queue. A read answered 503 (the database could not serve it in time), or
 * finished while the processors are saturated, counts as dropped.
 * <p>
 * Meters: those of {@link LimiterMeters}, {@code admission.running} (requests admitted
 * and not finished) and {@code admission.shed} (refused requests, by partition).
 */
@Component
public class AdmissionControl {

	/**
	 * The name of the limiter in its meters ({@code id} tag of {@code admission.call}).
	 */
	static final String NAME = "api";

	/** Who gets a share of the limit. */
	enum Partition {

		/** Registrations and logins: every POST. */
		WRITES,
		/** Everything else. */
		READS;

		final String tag = name().toLowerCase(Locale.ROOT);

		static Partition of(HttpServletRequest request) {
			return "POST".equals(request.getMethod()) ? WRITES : READS;
		}

		/** The partition's name in the library's limiter and in the meters. */
		String tag() {
			return this.tag;
		}

	}

	/** One admitted request, to be reported back when it ends. */
	public interface Admission {

		/**
		 * @param status the answer's HTTP status
		 */
		void finished(int status);

		/** The request ended by an exception: its time says nothing of the load. */
		void abandoned();

	}

	private static final Admission UNLIMITED = new Admission() {

		@Override
		public void finished(int status) {
		}

		@Override
		public void abandoned() {
		}

	};

	private final AdmissionProperties properties;

	/** The limit and its partitions, asked with the request's partition. */
	private final AbstractLimiter<Partition> limiter;

	/** The same, with the short wait for a place in front of it. */
	private final Limiter<Partition> waiting;

	private final Map<Partition, Counter> shed = new EnumMap<>(Partition.class);

	private final CpuLoad cpu;

	@Autowired
	AdmissionControl(AdmissionProperties properties, ObjectProvider<MeterRegistry> registry) {
		this(properties, registry.getIfAvailable(SimpleMeterRegistry::new));
	}

	AdmissionControl(AdmissionProperties properties, MeterRegistry registry) {
		this(properties, registry, System::nanoTime, CpuLoad.machine(properties.cpu().measure()));
	}

	/**
	 * @param nanoClock what times the requests, {@code System::nanoTime} but in tests
	 * @param cpuShares the shares of the machine's processors busy since the previous
	 * call, the machine's and the service's ({@link CpuLoad#machine} but in tests)
	 */
	AdmissionControl(AdmissionProperties properties, MeterRegistry registry, LongSupplier nanoClock,
			Supplier<CpuLoad.Shares> cpuShares) {
		this.properties = properties;
		AdmissionProperties.Cpu cpu = properties.cpu();
		this.cpu = cpu.enabled() ? new CpuLoad(cpuShares, nanoClock, cpu) : null;
		this.limiter = limiter(properties, new LimiterMeters(registry), nanoClock);
		this.waiting = (properties.maxWait().isZero() || properties.waitingMax() == 0) ? this.limiter
				: LifoBlockingLimiter.newBuilder(this.limiter)
					.backlogSize(properties.waitingMax())
					.backlogTimeoutMillis(properties.maxWait().toMillis())
					.build();
		for (Partition partition : Partition.values()) {
			this.shed.put(partition,
					Counter.builder(LimiterMeters.PREFIX + "shed")
						.description("API requests refused with 503 at the admission limit")
						.tag("partition", partition.tag)
						.register(registry));
		}
		Gauge.builder(LimiterMeters.PREFIX + "running", this.limiter, AbstractLimiter::getInflight)
			.description("API requests admitted and not yet answered")
			.register(registry);
	}

	private static AbstractLimiter<Partition> limiter(AdmissionProperties properties, LimiterMeters meters,
			LongSupplier nanoClock) {
		VegasLimit vegas = VegasLimit.newBuilder()
			.initialLimit(properties.initialLimit())
			.maxConcurrency(properties.maxLimit())
			.alphaFunction((limit) -> properties.queueLow())
			.betaFunction((limit) -> properties.queueHigh())
			.thresholdFunction((limit) -> 0)
			.build();
		long window = properties.window().toNanos();
		WindowedLimit limit = WindowedLimit.newBuilder()
			.minWindowTime(window, TimeUnit.NANOSECONDS)
			.maxWindowTime(window, TimeUnit.NANOSECONDS)
			.build(vegas);
		Limiter<Partition> built = new PartitionedBuilder().named(NAME)
			.limit(limit)
			.nanoClock(nanoClock)
			.metricRegistry(meters)
			.partitionResolver(Partition::tag)
			.partition(Partition.WRITES.tag, properties.writeShare())
			.partition(Partition.READS.tag, 1 - properties.writeShare())
			.build();
		return (AbstractLimiter<Partition>) built;
	}

	/**
	 * @param request an API request about to run
	 * @return its admission, or empty when it is over the limit and must be refused; the
	 * call may wait up to {@code app.admission.max-wait} for a place
	 */
	public Optional<Admission> admit(HttpServletRequest request) {
		if (!this.properties.enabled()) {
			return Optional.of(UNLIMITED);
		}
		Partition partition = Partition.of(request);
		Optional<Limiter.Listener> listener = this.waiting.acquire(partition);
		if (listener.isEmpty()) {
			this.shed.get(partition).increment();
			return Optional.empty();
		}
		return Optional.of(new Running(listener.get(), partition, this));
	}

	/** Whole seconds for the refusal's {@code Retry-After}. */
	public long retryAfterSeconds() {
		return this.properties.retryAfter().toSeconds();
	}

	int limit() {
		return this.limiter.getLimit();
	}

	int running() {
		return this.limiter.getInflight();
	}

	/**
	 * @return whether the processors are saturated and the limit is still above the
	 * lowest their load may bring it to
	 */
	private boolean cpuSaturated() {
		return this.cpu != null && this.limiter.getLimit() > this.properties.cpu().minLimit() && this.cpu.saturated();
	}

	private record Running(Limiter.Listener listener, Partition partition,
			AdmissionControl control) implements Admission {

		@Override
		public void finished(int status) {
			if (this.partition == Partition.WRITES) {
				this.listener.onIgnore();
			}
			else if (status == 503 || this.control.cpuSaturated()) {
				this.listener.onDropped();
			}
			else {
				this.listener.onSuccess();
			}
		}

		@Override
		public void abandoned() {
			this.listener.onIgnore();
		}

	}

	/** The library's partitioned limiter, for requests. */
	private static final class PartitionedBuilder
			extends AbstractPartitionedLimiter.Builder<PartitionedBuilder, Partition> {

		@Override
		protected PartitionedBuilder self() {
			return this;
		}

	}

}
