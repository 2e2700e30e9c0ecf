package dev.highload.profiles.admission;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether the machine's processors are all but saturated ({@code app.admission.cpu.high})
 * by a load the service takes part in ({@code cpu.service-share}). Past that point every
 * thread waits its turn for a core, the service's as well as the database's and its
 * clients', and that wait shows in no time the service measures: a read waits before
 * Tomcat hands it to the filter, not inside it. When something else keeps the cores busy
 * and the service uses little of them, refusing its requests would free nothing, and they
 * do not count. The shares are read at most once every {@code cpu.window}, by the request
 * that finds the last reading old.
 */
final class CpuLoad {

	/** The shares of all the machine's processors busy since the previous reading. */
	record Shares(double machine, double service) {

	}

	private final Supplier<Shares> shares;

	private final LongSupplier nanoClock;

	private final long interval;

	private final double high;

	private final double serviceShare;

	private final AtomicLong nextReading;

	private volatile boolean saturated;

	/**
	 * @param shares the shares of all the machine's processors busy since the previous
	 * call, the whole machine's and this process's, from 0 to 1, negative when unknown
	 * @param nanoClock what tells the time
	 * @param settings how often to read the shares ({@code window}) and from which shares
	 * the processors count as saturated ({@code high}, above 1 never, and
	 * {@code service-share})
	 */
	CpuLoad(Supplier<Shares> shares, LongSupplier nanoClock, AdmissionProperties.Cpu settings) {
		this.shares = shares;
		this.nanoClock = nanoClock;
		this.interval = settings.window().toNanos();
		this.high = settings.high();
		this.serviceShare = settings.serviceShare();
		this.nextReading = new AtomicLong(nanoClock.getAsLong());
	}

	/**
	 * @return the shares of the machine's processors busy since the previous call, the
	 * machine's and this JVM's, as the JVM reads them (on Linux from {@code /proc}, or
	 * from the container's cgroup when it has a CPU quota); negative when it cannot tell
	 */
	static Supplier<Shares> machine() {
		OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
		if (bean instanceof com.sun.management.OperatingSystemMXBean os) {
			return () -> new Shares(os.getCpuLoad(), os.getProcessCpuLoad());
		}
		return () -> new Shares(-1, -1);
	}

	/**
	 * @return whether the last reading was at or above both shares
	 */
	boolean saturated() {
		long now = this.nanoClock.getAsLong();
		long next = this.nextReading.get();
		if (now - next >= 0 && this.nextReading.compareAndSet(next, now + this.interval)) {
			Shares reading = this.shares.get();
			this.saturated = reading.machine() >= this.high && reading.service() >= this.serviceShare;
		}
		return this.saturated;
	}

}
