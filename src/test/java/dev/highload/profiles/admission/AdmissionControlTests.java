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

	@Test
	void pastTheLimitReadsAreRefusedWhileRegistrationsAndLoginsKeepTheirShares() {
		AdmissionControl control = new AdmissionControl(fixedLimit(8), this.registry, this.now::get);
		List<AdmissionControl.Admission> reads = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			reads.add(control.admit(get()).orElseThrow());
		}
		assertThat(control.admit(get())).isEmpty();
		// An eighth of 8 each: one registration and one login may run while reads fill
		// the limit, not two.
		AdmissionControl.Admission registration = control.admit(register()).orElseThrow();
		assertThat(control.admit(register())).isEmpty();
		AdmissionControl.Admission login = control.admit(login()).orElseThrow();
		assertThat(control.admit(login())).isEmpty();
		assertThat(control.running()).isEqualTo(10);

		// Below the limit again, any request runs.
		registration.finished(200);
		login.finished(200);
		reads.get(0).finished(200);
		reads.get(1).finished(200);
		reads.get(2).finished(200);
		assertThat(control.admit(get())).isPresent();
		assertThat(shed("reads")).isEqualTo(1);
		assertThat(shed("registrations")).isEqualTo(1);
		assertThat(shed("logins")).isEqualTo(1);
		assertThat(this.registry.get("admission.limit").gauge().value()).isEqualTo(8);
		assertThat(this.registry.get("admission.running").gauge().value()).isEqualTo(6);
	}

	@Test
	void aFloodOfLoginsLeavesRegistrationsTheirShare() {
		AdmissionControl control = new AdmissionControl(fixedLimit(8), this.registry, this.now::get);
		int admitted = 0;
		for (int i = 0; i < 20; i++) {
			admitted += control.admit(login()).isPresent() ? 1 : 0;
		}
		assertThat(admitted).as("logins fill the limit, then only their share counts").isEqualTo(8);
		assertThat(control.admit(register())).as("a registration").isPresent();
		assertThat(shed("logins")).isEqualTo(12);
		assertThat(shed("registrations")).isZero();
	}

	@Test
	void theLimitStartsAtItsMaximumAndStaysThereWhileTheObjectiveHolds() {
		// Objective 50 ms: reads of 20 ms are slow, many times the fastest, but within
		// half of it; a few running at once or many, the limit stays.
		AdmissionControl control = new AdmissionControl(limits(16, 64), this.registry, this.now::get);
		assertThat(control.limit()).isEqualTo(64);
		for (int window = 0; window < 20; window++) {
			window(control, (window % 2 == 0) ? 2 : 64, Duration.ofMillis(20), false);
		}
		assertThat(control.limit()).isEqualTo(64);
		assertThat(shed("reads")).isZero();
	}

	@Test
	void theLimitComesDownWhenTheReadsP99ThreatensTheObjectiveAndGrowsBackWhenItHolds() {
		AdmissionControl control = new AdmissionControl(limits(16, 64), this.registry, this.now::get);

		// Registrations take 80 ms (their hash) in every window: the limit does not fall.
		for (int window = 0; window < 10; window++) {
			window(control, 10, Duration.ofMillis(80), true);
			window(control, 4, Duration.ofMillis(2), false);
		}
		assertThat(control.limit()).isEqualTo(64);

		// One read in a hundred slower than half the objective: the p99 holds, so does
		// the
		// limit.
		for (int window = 0; window < 5; window++) {
			mixedWindow(control, 198, Duration.ofMillis(2), 2, Duration.ofMillis(40));
		}
		assertThat(control.limit()).isEqualTo(64);

		// Overload: the reads' p99 passes half the objective. The limit falls by a tenth
		// each window, to its minimum and not below.
		for (int window = 0; window < 40; window++) {
			window(control, control.limit(), Duration.ofMillis(30), false);
		}
		assertThat(control.limit()).isEqualTo(16);

		// The objective holds again, with few reads running: the limit grows back by one
		// a
		// window.
		for (int window = 0; window < 10; window++) {
			window(control, 2, Duration.ofMillis(2), false);
		}
		assertThat(control.limit()).isBetween(16 + 8, 16 + 10);
	}

	@Test
	void aReadAnswered503BringsTheLimitDown() {
		AdmissionControl control = new AdmissionControl(limits(16, 64), this.registry, this.now::get);
		for (int i = 0; i < 150; i++) {
			AdmissionControl.Admission read = control.admit(get()).orElseThrow();
			this.now.addAndGet(Duration.ofMillis(1).toNanos());
			read.finished((i == 75) ? 503 : 200);
		}
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
		window(control, 10, Duration.ofMillis(2), false);
		assertThat(control.limit()).isLessThan(64);
	}

	@Test
	void aRequestOverTheLimitWaitsForAPlace() throws Exception {
		AdmissionControl control = new AdmissionControl(
				new AdmissionProperties(true, Duration.ofSeconds(20), 1, 1, 8, 0.125, 0.125, Duration.ofSeconds(1)),
				this.registry);
		AdmissionControl.Admission first = control.admit(get()).orElseThrow();
		Thread finisher = new Thread(() -> {
			sleep(50);
			first.finished(200);
		});
		finisher.start();
		assertThat(control.admit(get())).as("admitted once the first one finished").isPresent();
		finisher.join();
		assertThat(shed("reads")).isZero();
	}

	@Test
	void aBurstWaitsAFifthOfTheObjectiveAndAStandingQueueATenth() {
		AdmissionControl control = new AdmissionControl(
				new AdmissionProperties(true, Duration.ofMillis(400), 1, 1, 8, 0.125, 0.125, Duration.ofSeconds(1)),
				this.registry, this.now::get);
		control.admit(get(), 0, true).orElseThrow();

		// The limit had room 250 ms ago: a burst, which may wait a fifth of the
		// objective.
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(250));
		long start = System.nanoTime();
		assertThat(control.admit(get(), 0, true)).isEmpty();
		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(80));

		// Less the time it already waited for a thread: 50 of its 80 ms.
		start = System.nanoTime();
		assertThat(control.admit(get(), TimeUnit.MILLISECONDS.toNanos(50), true)).isEmpty();
		assertThat(System.nanoTime() - start).isBetween(TimeUnit.MILLISECONDS.toNanos(30),
				TimeUnit.MILLISECONDS.toNanos(75));

		// Full for more than 300 ms: a standing queue, a tenth of the objective.
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
		start = System.nanoTime();
		assertThat(control.admit(get(), 0, true)).isEmpty();
		assertThat(System.nanoTime() - start).isBetween(TimeUnit.MILLISECONDS.toNanos(40),
				TimeUnit.MILLISECONDS.toNanos(75));
		assertThat(shed("reads")).isEqualTo(3);
		assertThat(late()).isZero();
	}

	@Test
	void aReadThatFoundAThreadFreeIsNotRefusedForItsWaitNorMakesTheQueueStand() {
		AdmissionControl control = new AdmissionControl(limits(64, 64), this.registry, this.now::get);
		this.now.set(TimeUnit.SECONDS.toNanos(10));

		// Its thread was free when it came; the cores took 45 ms to run it: no request
		// was in front of it, and refusing it would serve none behind it sooner.
		for (int i = 0; i < 30; i++) {
			assertThat(control.admit(get(), millis(45), false)).isPresent();
		}
		nextWindow();
		assertThat(standing()).isZero();
		assertThat(control.admit(get(), millis(45), false)).isPresent();
		assertThat(late()).isZero();
		// Its wait is still timed as it was.
		assertThat(this.registry.get("admission.queued").timer().max(TimeUnit.MILLISECONDS)).isEqualTo(45);

		// The same wait behind busy threads is refused.
		assertThat(control.admit(get(), millis(45), true)).isEmpty();
		assertThat(late()).isEqualTo(1);
	}

	@Test
	void aReadThatWaitedForAThreadLongerThanItMayIsRefusedAtOnce() {
		AdmissionControl control = new AdmissionControl(limits(64, 64), this.registry, this.now::get);
		this.now.set(TimeUnit.SECONDS.toNanos(10));

		// While the queue does not stand, a read may have waited three fifths of the
		// objective, 30 ms: the rest is for its answer and the waits no clock sees.
		assertThat(control.admit(get(), millis(2), true)).isPresent();
		assertThat(control.admit(get(), millis(29), true)).isPresent();
		assertThat(control.admit(get(), millis(31), true)).isEmpty();
		assertThat(late()).isEqualTo(1);

		// More than half of a window's requests waited longer than a tenth of the
		// objective: the queue stands, and a read may have waited a fifth, 10 ms.
		for (int i = 0; i < 30; i++) {
			assertThat(control.admit(get(), millis(8), true)).isPresent();
		}
		nextWindow();
		assertThat(control.admit(get(), millis(11), true)).isEmpty();
		assertThat(standing()).isEqualTo(1);
		assertThat(control.admit(get(), millis(9), true)).isPresent();
		assertThat(late()).isEqualTo(2);

		// Registrations and logins are not refused for their wait: they have their
		// shares.
		assertThat(control.admit(register(), millis(45), true)).isPresent();
		assertThat(control.admit(login(), millis(45), true)).isPresent();

		// A window in which some still waited longer than a fifth: it stands on.
		nextWindow();
		assertThat(control.admit(get(), millis(1), true)).isPresent();
		assertThat(standing()).isEqualTo(1);

		// A window in which none did: it has drained.
		nextWindow();
		assertThat(control.admit(get(), millis(25), true)).isPresent();
		assertThat(standing()).isZero();
		assertThat(shed("reads")).isEqualTo(2);
		assertThat(this.registry.get("admission.queued").timer().max(TimeUnit.MILLISECONDS)).isEqualTo(45);
	}

	/**
	 * Issue 59: every POST but a login's counted as a registration, so a flood of POSTs
	 * to a path that answers 404 spent the registrations' share. The shares are the two
	 * endpoints' alone.
	 */
	@Test
	void onlyTheRegistrationAndLoginEndpointsSpendTheirShares() {
		assertThat(AdmissionControl.Partition.of(register())).isEqualTo(AdmissionControl.Partition.REGISTRATIONS);
		assertThat(AdmissionControl.Partition.of(login())).isEqualTo(AdmissionControl.Partition.LOGINS);
		for (MockHttpServletRequest other : List.of(new MockHttpServletRequest("POST", "/user/register/x"),
				new MockHttpServletRequest("POST", "/anything"), new MockHttpServletRequest("POST", "/user/search"),
				new MockHttpServletRequest("GET", "/login"), get())) {
			assertThat(AdmissionControl.Partition.of(other)).as(other.getMethod() + " " + other.getRequestURI())
				.isEqualTo(AdmissionControl.Partition.READS);
		}
	}

	@Test
	void aWindowOfFewRequestsOrNoneSaysNothingOfAQueue() {
		AdmissionControl control = new AdmissionControl(limits(64, 64), this.registry, this.now::get);
		this.now.set(TimeUnit.SECONDS.toNanos(10));
		// Ten long waits (fewer than 20 in the window): a burst, not a standing queue.
		for (int i = 0; i < 10; i++) {
			assertThat(control.admit(get(), millis(20), true)).isPresent();
		}
		nextWindow();
		assertThat(control.admit(get(), millis(20), true)).isPresent();
		assertThat(standing()).isZero();

		// A standing queue, then a quiet window: it no longer stands.
		for (int i = 0; i < 30; i++) {
			control.admit(get(), millis(9), true);
		}
		nextWindow();
		assertThat(control.admit(get(), millis(11), true)).isEmpty();
		nextWindow();
		nextWindow();
		assertThat(control.admit(get(), millis(20), true)).isPresent();
		assertThat(standing()).isZero();
	}

	private void nextWindow() {
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ThreadWaits.WINDOW_MILLIS + 1));
	}

	private double standing() {
		return this.registry.get("admission.queue.standing").gauge().value();
	}

	private static long millis(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

	private double late() {
		return this.registry.get("admission.late").counter().count();
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
		AdmissionControl control = new AdmissionControl(
				new AdmissionProperties(false, Duration.ofMillis(50), 1, 1, 0, 0.125, 0.125, Duration.ofSeconds(1)),
				this.registry, this.now::get);
		for (int i = 0; i < 100; i++) {
			assertThat(control.admit(get())).isPresent();
		}
		assertThat(shed("reads")).isZero();
	}

	@Test
	void settingsThatCannotWorkAreRefusedAtStart() {
		Duration second = Duration.ofSeconds(1);
		Duration objective = Duration.ofMillis(50);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdmissionProperties(true, Duration.ofMillis(5), 16, 128, 64, 0.125, 0.125, second));
		assertThatIllegalArgumentException().isThrownBy(() -> new AdmissionProperties(true,
				Duration.ofMillis(50).plusNanos(1), 16, 128, 64, 0.125, 0.125, second));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdmissionProperties(true, objective, 0, 128, 64, 0.125, 0.125, second));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdmissionProperties(true, objective, 200, 128, 64, 0.125, 0.125, second));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdmissionProperties(true, objective, 16, 128, -1, 0.125, 0.125, second));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AdmissionProperties(true, objective, 16, 128, 64, 0.5, 0.5, second));
		assertThatIllegalArgumentException().isThrownBy(
				() -> new AdmissionProperties(true, objective, 16, 128, 64, 0.125, 0.125, Duration.ofMillis(1500)));
		assertThatNoException()
			.isThrownBy(() -> new AdmissionProperties(true, Duration.ofMillis(10), 1, 1, 0, 0.125, 0.125, second));
	}

	/**
	 * One window of the limit: rounds of {@code atOnce} requests that start together and
	 * end after {@code time}, 150 in all (the limit moves on 100 reads or more in a
	 * window); the clock then moves past the window.
	 */
	private void window(AdmissionControl control, int atOnce, Duration time, boolean writes) {
		for (int done = 0; done < 150; done += atOnce) {
			admitAndFinish(control, Math.min(atOnce, 150 - done), time, writes);
		}
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(AdmissionControl.WINDOW_MILLIS + 50));
	}

	/**
	 * One window of {@code fast} reads one after the other, then {@code slow} slower
	 * ones.
	 */
	private void mixedWindow(AdmissionControl control, int fast, Duration fastTime, int slow, Duration slowTime) {
		for (int i = 0; i < fast; i++) {
			admitAndFinish(control, 1, fastTime, false);
		}
		admitAndFinish(control, slow, slowTime, false);
		this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(AdmissionControl.WINDOW_MILLIS + 50));
	}

	/** {@code count} requests start together, those admitted end after {@code time}. */
	private void admitAndFinish(AdmissionControl control, int count, Duration time, boolean writes) {
		List<AdmissionControl.Admission> running = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Optional<AdmissionControl.Admission> admitted = control.admit(writes ? register() : get());
			admitted.ifPresent(running::add);
		}
		this.now.addAndGet(time.toNanos());
		running.forEach((admission) -> admission.finished(200));
	}

	private double shed(String partition) {
		return this.registry.get("admission.shed").tag("partition", partition).counter().count();
	}

	/** A limit that stays where it is. */
	private static AdmissionProperties fixedLimit(int limit) {
		return limits(limit, limit);
	}

	/** The default objective (50 ms), no wait for a place. */
	private static AdmissionProperties limits(int min, int max) {
		return new AdmissionProperties(true, Duration.ofMillis(50), min, max, 0, 0.125, 0.125, Duration.ofSeconds(1));
	}

	private static MockHttpServletRequest get() {
		return new MockHttpServletRequest("GET", "/user/search");
	}

	private static MockHttpServletRequest login() {
		return new MockHttpServletRequest("POST", "/login");
	}

	private static MockHttpServletRequest register() {
		return new MockHttpServletRequest("POST", "/user/register");
	}

}
