package dev.highload.profiles.admission;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Whether the machine's processors are all but saturated
 * ({@code app.admission.cpu-high}). Past that point every thread waits its turn for a
 * core, the service's as well as the database's and its clients', and that wait shows in
 * no time the service measures: a read waits before Tomcat hands it to the filter, not
 * inside it. The share is read at most once a window, by the request that finds the last
 * reading old.
 */
final class CpuLoad {

	private final DoubleSupplier share;

	private final LongSupplier nanoClock;

	private final long interval;

	private final double high;

	private final AtomicLong nextReading;

	private volatile boolean saturated;

	/**
	 * @param share the share of all the machine's processors busy since the previous
	 * call, from 0 to 1, negative when unknown
	 * @param nanoClock what tells the time
	 * @param interval nanoseconds between two readings
	 * @param high the share from which the processors count as saturated; above 1 never
	 */
	CpuLoad(DoubleSupplier share, LongSupplier nanoClock, long interval, double high) {
		this.share = share;
		this.nanoClock = nanoClock;
		this.interval = interval;
		this.high = high;
		this.nextReading = new AtomicLong(nanoClock.getAsLong());
	}

	/**
	 * @return the share of the machine's processors busy since the previous call, as the
	 * JVM reads it (on Linux from {@code /proc/stat}, or from the container's cgroup when
	 * it has a CPU quota); negative when the JVM cannot tell
	 */
	static DoubleSupplier machine() {
		OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
		if (bean instanceof com.sun.management.OperatingSystemMXBean os) {
			return os::getCpuLoad;
		}
		return () -> -1;
	}

	/**
	 * @return whether the last reading was at or above the high share
	 */
	boolean saturated() {
		long now = this.nanoClock.getAsLong();
		long next = this.nextReading.get();
		if (now - next >= 0 && this.nextReading.compareAndSet(next, now + this.interval)) {
			this.saturated = this.share.getAsDouble() >= this.high;
		}
		return this.saturated;
	}

}
