package dev.highload.profiles.admission;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
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

	/** Linux's pressure stall information for the processors. */
	static final Path PRESSURE_FILE = Path.of("/proc/pressure/cpu");

	/**
	 * The machine's share by {@code app.admission.cpu.measure} (its processors busy since
	 * the previous reading, or the pressure on them), and the share of its processors
	 * this process used since the previous reading; each from 0 to 1, negative when
	 * unknown.
	 */
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
	 * the processors count as saturated ({@code high} and {@code service-share})
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
	 * @param measure what the machine's share is
	 * @return the machine's share by that measure (with {@code busy} the share of its
	 * processors busy since the previous call, as the JVM reads it: on Linux from
	 * {@code /proc}, or from the container's cgroup when it has a CPU quota), and this
	 * JVM's share of the processors since the previous call; negative when it cannot tell
	 */
	static Supplier<Shares> machine(AdmissionProperties.Measure measure) {
		OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
		if (!(bean instanceof com.sun.management.OperatingSystemMXBean os)) {
			return () -> new Shares(-1, -1);
		}
		if (measure == AdmissionProperties.Measure.PRESSURE) {
			return () -> new Shares(pressure(PRESSURE_FILE), os.getProcessCpuLoad());
		}
		return () -> new Shares(os.getCpuLoad(), os.getProcessCpuLoad());
	}

	/**
	 * @param file Linux's pressure file for the processors
	 * @return its {@code some avg10} as a share from 0 to 1, or -1 when the file cannot
	 * be read or does not hold it (a kernel without pressure stall information)
	 */
	static double pressure(Path file) {
		try (BufferedReader reader = Files.newBufferedReader(file)) {
			String some = reader.readLine();
			if (some == null || !some.startsWith("some ")) {
				return -1;
			}
			for (String field : some.split(" ")) {
				if (field.startsWith("avg10=")) {
					return Double.parseDouble(field.substring("avg10=".length())) / 100;
				}
			}
			return -1;
		}
		catch (IOException | NumberFormatException ex) {
			return -1;
		}
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
