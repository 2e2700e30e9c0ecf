package dev.highload.profiles.admission;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import com.netflix.concurrency.limits.limit.window.PercentileSampleWindowFactory;
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
 * now, or refuse it. The limit follows one objective, the p99 latency the service
 * promises ({@code app.admission.objective}): {@link ObjectiveLimit}, additive increase
 * and multiplicative decrease over windows of at least {@value #WINDOW_MILLIS} ms of
 * Netflix concurrency-limits, fed with each window's p99 read time. It starts at
 * {@code max-limit}; while that p99 stays within half the objective it grows by one each
 * window, back to {@code max-limit}; once it passes, it falls by a tenth each window,
 * down to {@code min-limit}. Half, because the time measured here starts when the request
 * reaches this class: the rest of a client's wait, in the kernel, in Tomcat's queue and
 * for a core, is not visible here and gets the other half.
 * <p>
 * So the limit refuses only when the objective is threatened, not whenever the machine is
 * busy: a busy machine that still answers within the objective keeps its limit. (The
 * Vegas algorithm this replaces took any rise of the latency over its fastest window for
 * queueing, and on a 2-core machine shared with its load generator refused at half the
 * machine's capacity.)
 * <p>
 * A request over the limit may wait for a place, the newest first (the library's LIFO
 * blocking limiter), for as long as the controlled delay of Facebook's "Fail at Scale"
 * allows: the objective while the limit has had room within the last 300 ms, so that a
 * burst (the requests that arrived during a pause of the collector or of the machine) is
 * served rather than refused; a tenth of it once the limit has been full for longer, when
 * more arrive than the service serves, so that the excess is refused in milliseconds. At
 * most {@code waiting-max} wait; one that finds no place in time is refused.
 * <p>
 * Three partitions share the limit. Past it, a request is refused only when its own
 * partition has used up its share, so a flood of reads cannot take the room kept for
 * registrations ({@code app.admission.registration-share}) and logins
 * ({@code login-share}), nor a flood of logins the registrations' room; reads are the
 * ones refused first. Only the reads teach the limit: a write's Argon2 hash takes tens of
 * milliseconds by design and would read as congestion; writes have their own bound, the
 * hashing queue. A read answered 503 (the database could not serve it in time) counts as
 * dropped, and brings the limit down as a missed objective does.
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

	/** The shortest window over which the reads' p99 is taken before the limit moves. */
	static final long WINDOW_MILLIS = 250;

	/**
	 * A window with fewer reads leaves the limit where it is: their p99 would be their
	 * slowest one.
	 */
	static final int WINDOW_MIN_READS = 100;

	/**
	 * The reads a window keeps (the first ones): 4,000 a second, more than a 2-core
	 * machine serves.
	 */
	static final int WINDOW_MAX_READS = 1000;

	/**
	 * A limit full this long has a standing queue behind it: the interval of the
	 * controlled delay in Facebook's "Fail at Scale", which takes 100 ms there. Here the
	 * requests that arrive during a pause of a few hundred milliseconds (a collection,
	 * the machine's cores taken by another process) take as long again to drain at 80-90
	 * % of capacity, and a shorter interval refused them although the service was not
	 * overloaded.
	 */
	static final long CONGESTION_MILLIS = 300;

	private static final long CONGESTION_NANOS = TimeUnit.MILLISECONDS.toNanos(CONGESTION_MILLIS);

	private static final long ROOM_RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/** Who gets a share of the limit. */
	enum Partition {

		/** Every POST but a login's: registrations. */
		REGISTRATIONS,
		/** {@code POST /login}. */
		LOGINS,
		/** Everything else. */
		READS;

		final String tag = name().toLowerCase(Locale.ROOT);

		static Partition of(HttpServletRequest request) {
			if (!"POST".equals(request.getMethod())) {
				return READS;
			}
			return "/login".equals(request.getRequestURI()) ? LOGINS : REGISTRATIONS;
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

	private final LongSupplier nanoClock;

	/** When a request last found room under the limit. */
	private volatile long lastRoom;

	@Autowired
	AdmissionControl(AdmissionProperties properties, ObjectProvider<MeterRegistry> registry) {
		this(properties, registry.getIfAvailable(SimpleMeterRegistry::new));
	}

	AdmissionControl(AdmissionProperties properties, MeterRegistry registry) {
		this(properties, registry, System::nanoTime);
	}

	/**
	 * @param nanoClock what times the requests, {@code System::nanoTime} but in tests
	 */
	AdmissionControl(AdmissionProperties properties, MeterRegistry registry, LongSupplier nanoClock) {
		this.properties = properties;
		this.nanoClock = nanoClock;
		this.lastRoom = nanoClock.getAsLong();
		this.limiter = limiter(properties, new LimiterMeters(registry), nanoClock);
		this.waiting = (properties.waitingMax() == 0) ? this.limiter
				: LifoBlockingLimiter.newBuilder(this.limiter)
					.backlogSize(properties.waitingMax())
					.backlogTimeout((partition) -> waitMillis(), TimeUnit.MILLISECONDS)
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
		ObjectiveLimit objective = new ObjectiveLimit(properties.objective().toNanos() / 2, properties.minLimit(),
				properties.maxLimit());
		WindowedLimit limit = WindowedLimit.newBuilder()
			.minWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
			.maxWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
			.windowSize(WINDOW_MIN_READS)
			.sampleWindowFactory(PercentileSampleWindowFactory.of(0.99, WINDOW_MAX_READS))
			.build(objective);
		Limiter<Partition> built = new PartitionedBuilder().named(NAME)
			.limit(limit)
			.nanoClock(nanoClock)
			.metricRegistry(meters)
			.partitionResolver(Partition::tag)
			.partition(Partition.REGISTRATIONS.tag, properties.registrationShare())
			.partition(Partition.LOGINS.tag, properties.loginShare())
			.partition(Partition.READS.tag, 1 - properties.registrationShare() - properties.loginShare())
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
		if (this.limiter.getInflight() < this.limiter.getLimit()) {
			noteRoom();
		}
		Optional<Limiter.Listener> listener = this.waiting.acquire(partition);
		if (listener.isEmpty()) {
			this.shed.get(partition).increment();
			return Optional.empty();
		}
		return Optional.of(new Running(listener.get(), partition));
	}

	/**
	 * Notes that a request found room under the limit. The time is written at most once a
	 * millisecond: every request with room would otherwise write the same shared field,
	 * and the congestion it feeds is judged over {@value #CONGESTION_MILLIS} ms.
	 */
	private void noteRoom() {
		long now = this.nanoClock.getAsLong();
		if (now - this.lastRoom > ROOM_RESOLUTION_NANOS) {
			this.lastRoom = now;
		}
	}

	/**
	 * How long a request over the limit waits for a place: the objective while the limit
	 * has had room within the last {@value #CONGESTION_MILLIS} ms (a burst, such as the
	 * requests that piled up during a pause, which the running ones drain in a moment: a
	 * few late answers do not move a p99, refusals would be failures), a tenth of it once
	 * it has been full all that time (a standing queue: more arrive than the service
	 * serves, and waiting longer would only make every answer later).
	 */
	private long waitMillis() {
		boolean congested = this.nanoClock.getAsLong() - this.lastRoom > CONGESTION_NANOS;
		return (congested ? this.properties.objective().dividedBy(10) : this.properties.objective()).toMillis();
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

	private record Running(Limiter.Listener listener, Partition partition) implements Admission {

		@Override
		public void finished(int status) {
			if (this.partition != Partition.READS) {
				this.listener.onIgnore();
			}
			else if (status == 503) {
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
