package dev.highload.profiles.admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class AdmissionControlTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final AtomicLong now = new AtomicLong();

	/** The share of the machine's processors busy, as the tests set it. */
	private volatile double cpu = 0.3;

	/** The share of them the service uses. */
	private volatile double serviceCpu = 0.15;

	private CpuLoad.Shares cpu() {
		return new CpuLoad.Shares(this.cpu, this.serviceCpu);
	}

	@Test
	void pastTheLimitReadsAreRefusedWhileWritesKeepTheirShare() {
		AdmissionControl control = new AdmissionControl(fixedLimit(4), this.registry, this.now::get, this::cpu);
		List<AdmissionControl.Admission> reads = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			reads.add(control.admit(get()).orElseThrow());
		}
		assertThat(control.admit(get())).isEmpty();
		// A quarter of 4: one write may run while reads fill the limit, not two.
		AdmissionControl.Admission write = control.admit(post()).orElseThrow();
		assertThat(control.admit(post())).isEmpty();
		assertThat(control.running()).isEqualTo(5);

		// Below the limit again, any request runs.
		write.finished(200);
		reads.get(0).finished(200);
		reads.get(1).finished(200);
		assertThat(control.admit(get())).isPresent();
		assertThat(shed("reads")).isEqualTo(1);
		assertThat(shed("writes")).isEqualTo(1);
		assertThat(this.registry.get("admission.limit").gauge().value()).isEqualTo(4);
		assertThat(this.registry.get("admission.running").gauge().value()).isEqualTo(3);
	}

	@Test
	void theLimitComesDownWhenReadsSlowDownAndIgnoresSlowWrites() {
		AdmissionControl control = new AdmissionControl(properties(true, 20, 200), this.registry, this.now::get,
				this::cpu);
		// Nothing queues: the limit grows while the running reads fill half of it (15 of
		// 30).
		for (int window = 0; window < 20; window++) {
			reads(control, 15, Duration.ofMillis(1));
		}
		int settled = control.limit();
		assertThat(settled).isGreaterThan(20);

		// Registrations take 50 ms (their hash) in every window: the limit does not move.
		for (int window = 0; window < 10; window++) {
			writes(control, 15, Duration.ofMillis(50));
			reads(control, 15, Duration.ofMillis(1));
		}
		assertThat(control.limit()).isGreaterThanOrEqualTo(settled);

		// Overload: more reads arrive than the limit admits, and they take five times as
		// long. The limit falls towards the minimum, and the excess is refused.
		for (int window = 0; window < 20; window++) {
			reads(control, 100, Duration.ofMillis(5));
		}
		assertThat(control.limit()).isLessThan(settled / 2);
	}

	@Test
	void theLimitComesDownWhileTheProcessorsAreSaturatedWhateverTheLatency() {
		AdmissionControl control = new AdmissionControl(properties(true, 20, 200), this.registry, this.now::get,
				this::cpu);
		for (int window = 0; window < 10; window++) {
			reads(control, 15, Duration.ofMillis(1));
		}
		int settled = control.limit();

		// Every core is busy, but hardly by the service (another process): refusing its
		// reads would free nothing, and the limit stays.
		this.cpu = 0.95;
		this.serviceCpu = 0.05;
		for (int window = 0; window < 10; window++) {
			reads(control, 15, Duration.ofMillis(1));
		}
		assertThat(control.limit()).isGreaterThanOrEqualTo(settled);

		// The reads take as long as before, but every core is busy, and the service's own
		// work is a good part of it: the limit falls window after window.
		this.serviceCpu = 0.45;
		for (int window = 0; window < 20; window++) {
			reads(control, 100, Duration.ofMillis(1));
		}
		int saturated = control.limit();
		assertThat(saturated).isLessThan(settled / 2);

		// Down to cpu.min-limit (4), not below: the load alone does not bring it lower.
		int lowest = saturated;
		for (int window = 0; window < 40; window++) {
			busyWindow(control);
			lowest = Math.min(lowest, control.limit());
		}
		assertThat(lowest).isEqualTo(4);

		// Room again on the processors: it grows back.
		this.cpu = 0.5;
		for (int window = 0; window < 10; window++) {
			busyWindow(control);
		}
		assertThat(control.limit()).isGreaterThan(saturated);
	}

	@Test
	void theProcessorsLoadMovesNothingUnlessTurnedOn() {
		AdmissionControl control = new AdmissionControl(new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(2.0, 2, 0.25)), this.registry,
				this.now::get, this::cpu);
		for (int window = 0; window < 10; window++) {
			reads(control, 15, Duration.ofMillis(1));
		}
		int settled = control.limit();
		this.cpu = 0.99;
		this.serviceCpu = 0.5;
		for (int window = 0; window < 20; window++) {
			reads(control, 15, Duration.ofMillis(1));
		}
		assertThat(control.limit()).isGreaterThanOrEqualTo(settled);
	}

	@Test
	void aRequestOverTheLimitWaitsBrieflyForAPlace() throws Exception {
		AdmissionControl control = new AdmissionControl(new AdmissionProperties(true, 1, 1, 2, 4, Duration.ofSeconds(1),
				Duration.ofMillis(2000), 8, 0.25, Duration.ofSeconds(1), cpu(2.0, 1, 0.25)), this.registry);
		AdmissionControl.Admission first = control.admit(get()).orElseThrow();
		Thread finisher = new Thread(() -> {
			sleep(50);
			first.finished(200);
		});
		finisher.start();
		assertThat(control.admit(get())).as("admitted once the first one finished").isPresent();
		finisher.join();
		assertThat(shed("reads")).isZero();

		AdmissionControl quick = new AdmissionControl(new AdmissionProperties(true, 1, 1, 2, 4, Duration.ofSeconds(1),
				Duration.ofMillis(20), 8, 0.25, Duration.ofSeconds(1), cpu(2.0, 1, 0.25)), new SimpleMeterRegistry());
		quick.admit(get()).orElseThrow();
		long start = System.nanoTime();
		assertThat(quick.admit(get())).as("no place within 20 ms").isEmpty();
		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void offAdmitsEverything() {
		AdmissionControl control = new AdmissionControl(properties(false, 1, 1), this.registry, this.now::get,
				this::cpu);
		for (int i = 0; i < 100; i++) {
			assertThat(control.admit(get())).isPresent();
		}
		assertThat(shed("reads")).isZero();
	}

	@Test
	void settingsThatCannotWorkAreRefusedAtStart() {
		assertThatIllegalArgumentException().isThrownBy(() -> properties(true, 0, 200));
		assertThatIllegalArgumentException().isThrownBy(() -> properties(true, 300, 200));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 4, 2,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(0.9, 4, 0.25)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 1.0, Duration.ofSeconds(1), cpu(0.9, 4, 0.25)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofMillis(1500), cpu(0.9, 4, 0.25)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(0, 4, 0.25)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(0.9, 0, 0.25)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 20, 200, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(0.9, 2, 1.5)));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true, 1, 1, 2, 4,
				Duration.ofSeconds(1), Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(0.9, 2, 0.25)));
		assertThatNoException().isThrownBy(() -> new AdmissionProperties(true, 1, 1, 2, 4, Duration.ofSeconds(1),
				Duration.ZERO, 0, 0.25, Duration.ofSeconds(1), cpu(2.0, 2, 0.25)));
	}

	/**
	 * One window of the limit (1 s): {@code count} requests start together and end after
	 * {@code time}; the clock then moves on to the next window.
	 */
	private void reads(AdmissionControl control, int count, Duration time) {
		window(control, count, time, false);
	}

	private void writes(AdmissionControl control, int count, Duration time) {
		window(control, count, time, true);
	}

	private void window(AdmissionControl control, int count, Duration time, boolean writes) {
		admitAndFinish(control, count, time, writes);
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1100));
	}

	/**
	 * One window of three rounds of 100 reads of 1 ms: the library needs 10 reads in a
	 * window to move the limit, and a limit under 10 admits fewer at once.
	 */
	private void busyWindow(AdmissionControl control) {
		for (int round = 0; round < 3; round++) {
			admitAndFinish(control, 100, Duration.ofMillis(1), false);
		}
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1100));
	}

	/** {@code count} requests start together, those admitted end after {@code time}. */
	private void admitAndFinish(AdmissionControl control, int count, Duration time, boolean writes) {
		List<AdmissionControl.Admission> running = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Optional<AdmissionControl.Admission> admitted = control.admit(writes ? post() : get());
			admitted.ifPresent(running::add);
		}
		this.now.addAndGet(time.toNanos());
		running.forEach((admission) -> admission.finished(200));
	}

	private double shed(String partition) {
		return this.registry.get("admission.shed").tag("partition", partition).counter().count();
	}

	/** A limit that stays where it is: no window ever ends in these tests. */
	private static AdmissionProperties fixedLimit(int limit) {
		return properties(true, limit, limit);
	}

	private static AdmissionProperties properties(boolean enabled, int initial, int max) {
		return new AdmissionProperties(enabled, initial, max, 2, 4, Duration.ofSeconds(1), Duration.ZERO, 0, 0.25,
				Duration.ofSeconds(1), cpu(0.9, Math.min(4, max), 0.25));
	}

	/**
	 * The processors' signal: on with {@code high} up to 1, off above.
	 */
	private static AdmissionProperties.Cpu cpu(double high, int minLimit, double serviceShare) {
		return new AdmissionProperties.Cpu(high <= 1, (high <= 1) ? high : 0.9, minLimit, serviceShare,
				Duration.ofSeconds(1), AdmissionProperties.Measure.BUSY);
	}

	private static MockHttpServletRequest get() {
		return new MockHttpServletRequest("GET", "/user/search");
	}

	private static MockHttpServletRequest post() {
		return new MockHttpServletRequest("POST", "/user/register");
	}

}
