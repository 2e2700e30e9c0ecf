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
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The limit on API requests running at once, and the decision for each request: run it
 * now, or refuse it. Both follow one objective, the p99 latency the service promises
 * ({@code app.admission.objective}).
 * <p>
 * First the wait before it, judged from arrival: the time since Tomcat handed the request
 * to its threads ({@link RequestThreads}), which is where requests queue when more arrive
 * than the service serves. A read that has already waited longer than it may, behind
 * threads that other requests held, is refused at once, for the cost of a refusal: three
 * fifths of the objective while the queue does not stand (the rest is for its answer), a
 * fifth while it stands ({@link ThreadWaits}). A read that found a thread free is not
 * refused for its wait, however long the cores took to run that thread: no request queued
 * in front of it, and none behind it would be served sooner. Without this, past capacity
 * the queue grew to seconds in front of a limit that saw none of it and refused nothing
 * (docs/reports/overload.md, "Judged from arrival").
 * <p>
 * Then the limit: {@link ObjectiveLimit}, additive increase and multiplicative decrease
 * over windows of at least {@value #WINDOW_MILLIS} ms of Netflix concurrency-limits, fed
 * with each window's p99 read time from this class on. It starts at {@code max-limit};
 * while that p99 stays within half the objective it grows by one each window, back to
 * {@code max-limit}; once it passes, it falls by a tenth each window, down to
 * {@code min-limit}. So the limit refuses only when the objective is threatened, not
 * whenever the machine is busy. (The Vegas algorithm it replaced took any rise of the
 * latency over its fastest window for queueing, and on a 2-core machine shared with its
 * load generator refused at half the machine's capacity.)
 * <p>
 * A request over the limit may wait for a place, the newest first (the library's LIFO
 * blocking limiter), by the same rule on the limit: a fifth of the objective while the
 * limit has had room within the last {@value #CONGESTION_MILLIS} ms, so that a burst (the
 * requests that arrived during a pause of the collector or of the machine) is served
 * rather than refused; a tenth of it once the limit has been full for longer, when more
 * arrive than the service serves; in either case less the time it waited for a thread. At
 * most {@code waiting-max} wait; one that finds no place in time is refused.
 * <p>
 * Three partitions share the limit. Past it, a request is refused only when its own
 * partition has used up its share, so a flood of reads cannot take the room kept for
 * registrations ({@code app.admission.registration-share}) and logins
 * ({@code login-share}), nor a flood of logins the registrations' room; reads are the
 * ones refused first, and only reads are refused for their wait for a thread. Only the
 * reads teach the limit: a write's Argon2 hash takes tens of milliseconds by design and
 * would read as congestion; writes have their own bound, the hashing queue. A read
 * answered 503 (the database could not serve it in time) counts as dropped, and brings
 * the limit down as a missed objective does.
 * <p>
 * Meters: those of {@link LimiterMeters}, {@code admission.running} (requests admitted
 * and not finished), {@code admission.shed} (refused requests, by partition),
 * {@code admission.late} (the reads among them refused for their wait for a thread),
 * {@code admission.queued} (how long each API request waited for a thread) and
 * {@code admission.queue.standing} (1 while the queue stands).
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

		/** {@code POST /user/register}. */
		REGISTRATIONS,
		/** {@code POST /login}. */
		LOGINS,
		/**
		 * Everything else, a POST to any other path included: the two shares are kept for
		 * the two endpoints that hash a password, and a request that is neither (a POST
		 * to a path that answers 404 or 405) cannot spend them.
		 */
		READS;

		final String tag = name().toLowerCase(Locale.ROOT);

		static Partition of(HttpServletRequest request) {
			if (!"POST".equals(request.getMethod())) {
				return READS;
			}
			String path = request.getRequestURI();
			return "/login".equals(path) ? LOGINS : "/user/register".equals(path) ? REGISTRATIONS : READS;
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
	private final AbstractLimiter<Ask> limiter;

	/** The same, with the short wait for a place in front of it. */
	private final Limiter<Ask> waiting;

	private final Map<Partition, Counter> shed = new EnumMap<>(Partition.class);

	private final Counter late;

	private final Timer queued;

	private final LongSupplier nanoClock;

	/** The longest a request over the limit waits for a place under congestion. */
	private final long shortWaitNanos;

	/** The longest a request over the limit waits for a place in a burst. */
	private final long burstWaitNanos;

	/** When a request last found room under the limit. */
	private volatile long lastRoom;

	/** Whether a request waited too long for a thread, and whether the queue stands. */
	private final ThreadWaits threadWaits;

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
		this.shortWaitNanos = properties.objective().toNanos() / 10;
		this.burstWaitNanos = properties.objective().toNanos() / 5;
		this.lastRoom = nanoClock.getAsLong();
		this.threadWaits = new ThreadWaits(properties.objective(), this.lastRoom);
		this.limiter = limiter(properties, new LimiterMeters(registry), nanoClock);
		this.waiting = (properties.waitingMax() == 0) ? this.limiter
				: LifoBlockingLimiter.newBuilder(this.limiter)
					.backlogSize(properties.waitingMax())
					.backlogTimeout(this::waitMillis, TimeUnit.MILLISECONDS)
					.build();
		for (Partition partition : Partition.values()) {
			this.shed.put(partition,
					Counter.builder(LimiterMeters.PREFIX + "shed")
						.description("API requests refused with 503 at the admission limit")
						.tag("partition", partition.tag)
						.register(registry));
		}
		this.late = Counter.builder(LimiterMeters.PREFIX + "late")
			.description("Reads refused with 503 for the time they had waited for a request thread")
			.register(registry);
		this.queued = Timer.builder(LimiterMeters.PREFIX + "queued")
			.description("How long API requests waited for a request thread before admission")
			.register(registry);
		Gauge.builder(LimiterMeters.PREFIX + "queue.standing", this.threadWaits, (waits) -> waits.standing() ? 1 : 0)
			.description("1 while the queue in front of the request threads stands, else 0")
			.register(registry);
		Gauge.builder(LimiterMeters.PREFIX + "running", this.limiter, AbstractLimiter::getInflight)
			.description("API requests admitted and not yet answered")
			.register(registry);
	}

	private static AbstractLimiter<Ask> limiter(AdmissionProperties properties, LimiterMeters meters,
			LongSupplier nanoClock) {
		ObjectiveLimit objective = new ObjectiveLimit(properties.objective().toNanos() / 2, properties.minLimit(),
				properties.maxLimit());
		WindowedLimit limit = WindowedLimit.newBuilder()
			.minWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
			.maxWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
			.windowSize(WINDOW_MIN_READS)
			.sampleWindowFactory(PercentileSampleWindowFactory.of(0.99, WINDOW_MAX_READS))
			.build(objective);
		Limiter<Ask> built = new PartitionedBuilder().named(NAME)
			.limit(limit)
			.nanoClock(nanoClock)
			.metricRegistry(meters)
			.partitionResolver((ask) -> ask.partition().tag())
			.partition(Partition.REGISTRATIONS.tag, properties.registrationShare())
			.partition(Partition.LOGINS.tag, properties.loginShare())
			.partition(Partition.READS.tag, 1 - properties.registrationShare() - properties.loginShare())
			.build();
		return (AbstractLimiter<Ask>) built;
	}

	/**
	 * @param request an API request about to run, on the request thread that took it from
	 * Tomcat's queue
	 * @return its admission, or empty when it must be refused: it waited too long for a
	 * thread, or it is over the limit; the call may wait a few milliseconds for a place
	 */
	public Optional<Admission> admit(HttpServletRequest request) {
		long since = RequestThreads.takeQueuedSince();
		long waited = (since == RequestThreads.NONE) ? 0 : Math.max(0, this.nanoClock.getAsLong() - since);
		return admit(request, waited, RequestThreads.queuedBehindBusyThreads());
	}

	/**
	 * @param request an API request about to run
	 * @param waited how long it waited for a thread, in nanoseconds (0 when not known)
	 * @param queued whether every thread was taken when it came, so that it queued behind
	 * other requests; one that found a thread free is never refused for its wait, nor
	 * does its wait count towards the queue standing
	 * @return as {@link #admit(HttpServletRequest)}
	 */
	Optional<Admission> admit(HttpServletRequest request, long waited, boolean queued) {
		if (!this.properties.enabled()) {
			return Optional.of(UNLIMITED);
		}
		Partition partition = Partition.of(request);
		long now = this.nanoClock.getAsLong();
		this.queued.record(waited, TimeUnit.NANOSECONDS);
		if (tooLate(partition, queued ? waited : 0, now)) {
			this.late.increment();
			this.shed.get(partition).increment();
			return Optional.empty();
		}
		if (this.limiter.getInflight() < this.limiter.getLimit()) {
			noteRoom(now);
		}
		Optional<Limiter.Listener> listener = this.waiting.acquire(new Ask(partition, waited));
		if (listener.isEmpty()) {
			this.shed.get(partition).increment();
			return Optional.empty();
		}
		return Optional.of(new Running(listener.get(), partition));
	}

	/**
	 * Whether a read waited longer for a thread than it may ({@link ThreadWaits}); every
	 * request's wait counts towards judging the queue. Registrations and logins are not
	 * refused for their wait: they keep their shares of the limit, and a flood of reads
	 * that fills the queue is refused in front of them. A request that found a thread
	 * free comes here with no wait: what it waited was for a core, not behind other
	 * requests (the wake-up of an idle thread while other processes or the hashing keep
	 * the cores busy), and refusing it would drain no queue. Counted as a wait, a busy
	 * machine far below the service's capacity had its reads refused: a sequential GET
	 * every 50 ms beside 300 TLS handshakes at the HA edge, two Schemathesis workers
	 * while the JIT still compiled, reads beside a flood of hashes that held six of the
	 * sixteen threads.
	 */
	private boolean tooLate(Partition partition, long waited, long now) {
		return this.threadWaits.tooLong(waited, now) && partition == Partition.READS;
	}

	/**
	 * Notes that a request found room under the limit. The time is written at most once a
	 * millisecond: every request with room would otherwise write the same shared field,
	 * and the congestion it feeds is judged over {@value #CONGESTION_MILLIS} ms.
	 */
	private void noteRoom(long now) {
		if (now - this.lastRoom > ROOM_RESOLUTION_NANOS) {
			this.lastRoom = now;
		}
	}

	/**
	 * How long a request over the limit waits for a place: a fifth of the objective while
	 * the limit has had room within the last {@value #CONGESTION_MILLIS} ms (a burst,
	 * such as the requests that piled up during a pause, which the running ones drain in
	 * a moment: a few late answers do not move a p99, refusals would be failures), a
	 * tenth of it once it has been full all that time (a standing queue: more arrive than
	 * the service serves, and waiting longer would only make every answer later); less,
	 * in either case, the time it already waited for a thread.
	 */
	private long waitMillis(Ask ask) {
		boolean congested = this.nanoClock.getAsLong() - this.lastRoom > CONGESTION_NANOS;
		long patience = congested ? this.shortWaitNanos : this.burstWaitNanos;
		return TimeUnit.NANOSECONDS.toMillis(Math.max(0, patience - ask.waited()));
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
	 * What the limiter is asked with: the request's partition, and how long it waited for
	 * a thread.
	 */
	private record Ask(Partition partition, long waited) {

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
	private static final class PartitionedBuilder extends AbstractPartitionedLimiter.Builder<PartitionedBuilder, Ask> {

		@Override
		protected PartitionedBuilder self() {
			return this;
		}

	}

}
