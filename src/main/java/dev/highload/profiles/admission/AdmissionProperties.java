package dev.highload.profiles.admission;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Admission control of the API ({@code app.admission.*}): a limit on the requests that
 * run at once, which the Vegas algorithm of Netflix's concurrency-limits moves with the
 * reads' latency and the machine's CPU, and a share of it kept for writes. A request over
 * the limit is answered 503 with {@code Retry-After} before it touches the database.
 *
 * @param enabled off: every request runs, however many are running already
 * @param initialLimit the limit at start
 * @param maxLimit the limit never goes above this; more requests than Tomcat has threads
 * cannot run at once anyway (server.tomcat.threads.max, 200 by default)
 * @param queueLow the limit grows while fewer reads than this queue, by Vegas' estimate
 * @param queueHigh and falls while more than this do
 * @param window the time over which the reads' latency is averaged before each change of
 * the limit
 * @param maxWait how long a request over the limit may wait for a place before it is
 * refused: a burst of a few requests more than the limit waits a moment instead of being
 * refused while the service has room; 0 refuses at once
 * @param waitingMax how many requests may wait so at most; past that a request over the
 * limit is refused at once. The newest waiting request gets the next free place (the
 * oldest is the likeliest to have been given up by its client)
 * @param writeShare the share of the limit that registrations and logins keep when reads
 * fill the rest: past the limit a read is refused while writes still have room in theirs
 * @param retryAfter what the 503 tells the client to wait, in whole seconds
 * @param cpu the machine's processors as a signal besides the reads' latency
 */
@ConfigurationProperties("app.admission")
public record AdmissionProperties(@DefaultValue("true") boolean enabled, @DefaultValue("20") int initialLimit,
		@DefaultValue("200") int maxLimit, @DefaultValue("2") int queueLow, @DefaultValue("4") int queueHigh,
		@DefaultValue("250ms") Duration window, @DefaultValue("2ms") Duration maxWait,
		@DefaultValue("64") int waitingMax, @DefaultValue("0.25") double writeShare,
		@DefaultValue("1s") Duration retryAfter, @DefaultValue Cpu cpu) {

	public AdmissionProperties {
		if (initialLimit < 1 || maxLimit < initialLimit) {
			throw new IllegalArgumentException("app.admission limits must satisfy 1 <= initial-limit <= max-limit");
		}
		if (queueLow < 1 || queueHigh < queueLow) {
			throw new IllegalArgumentException("app.admission queues must satisfy 1 <= queue-low <= queue-high");
		}
		if (maxWait.isNegative() || maxWait.toNanos() % 1_000_000 != 0 || waitingMax < 0) {
			throw new IllegalArgumentException(
					"app.admission.max-wait must be whole milliseconds, 0 or more, and waiting-max 0 or more");
		}
		if (window.toMillis() < 10) {
			throw new IllegalArgumentException("app.admission.window must be at least 10ms");
		}
		if (writeShare <= 0 || writeShare >= 1) {
			throw new IllegalArgumentException("app.admission.write-share must be between 0 and 1, both excluded");
		}
		if (retryAfter.toSeconds() < 1 || retryAfter.toMillis() % 1000 != 0) {
			throw new IllegalArgumentException(
					"app.admission.retry-after must be a whole number of seconds, at least 1");
		}
		if (cpu.enabled() && cpu.minLimit() > maxLimit) {
			throw new IllegalArgumentException("app.admission.cpu.min-limit must not be above max-limit");
		}
	}

	/**
	 * The machine's processors as a signal ({@code app.admission.cpu.*}): while they are
	 * all but saturated by a load the service takes part in, the limit falls as though
	 * reads were timing out. Off by default: on machine E it kept 500,000 users' requests
	 * at p99 5 ms where the limit alone let them reach 50 ms and more, but it also
	 * refused requests at 250,000 users, where the machine passes 180 % in one second of
	 * six (docs/reports/load-testing.md, "The processors' load as a signal").
	 *
	 * @param enabled whether the processors' load moves the limit at all
	 * @param high the share of the machine's processors busy from which the limit falls,
	 * whatever the reads' latency
	 * @param minLimit the processors' load does not bring the limit below this, so that
	 * after a saturation the service recovers from more than one request at a time
	 * @param serviceShare it counts only while the service's own process uses at least
	 * this share of all the processors: when something else keeps them busy (another
	 * process, a load generator starting), refusing the service's requests would free
	 * nothing
	 * @param window the time over which the load is read: long enough that a burst (a
	 * garbage collection, a client's own pause) does not read as saturation
	 * @param measure what {@code high} is compared with: the share of the processors busy
	 * over the window, or the share of time in which some task waited for one
	 */
	public record Cpu(@DefaultValue("false") boolean enabled, @DefaultValue("0.9") double high,
			@DefaultValue("2") int minLimit, @DefaultValue("0.25") double serviceShare,
			@DefaultValue("1s") Duration window, @DefaultValue("busy") Measure measure) {

		public Cpu {
			if (!(high > 0 && high <= 1)) {
				throw new IllegalArgumentException("app.admission.cpu.high must be above 0 and at most 1");
			}
			if (minLimit < 1) {
				throw new IllegalArgumentException("app.admission.cpu.min-limit must be at least 1");
			}
			if (serviceShare < 0 || serviceShare > 1) {
				throw new IllegalArgumentException("app.admission.cpu.service-share must be between 0 and 1");
			}
			if (window.toMillis() < 10) {
				throw new IllegalArgumentException("app.admission.cpu.window must be at least 10ms");
			}
		}

	}

	/** What tells that the machine's processors are saturated. */
	public enum Measure {

		/** The share of all the processors busy over the window, as the JVM reads it. */
		BUSY,
		/**
		 * Linux's pressure stall information for the processors
		 * ({@code /proc/pressure/cpu}, its {@code some avg10}): the share of the last ten
		 * seconds in which at least one runnable task waited for a core. Averaged over
		 * ten seconds, a burst does not count, a load the cores cannot keep up with does.
		 */
		PRESSURE

	}

}
