package dev.highload.profiles.gatling;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;

import io.gatling.javaapi.core.PopulationBuilder;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * A surge and what follows it: users of {@link GetUserSimulation} (10 profile reads each)
 * arrive at a calm rate for a while, then at twice the service's capacity for a minute,
 * then at the calm rate again. Each phase names its requests apart, so that Gatling's
 * statistics give each its own figures: {@code GET /user/{id} before}, {@code ... surge},
 * {@code ... first 5 s after} and {@code ... after} (from 5 s after the surge on). The
 * assertions: after the surge, 0 failed and p99 within {@code -Dp99} (10 ms), as before
 * it.
 * <p>
 * {@code -Dcapacity}: the users per second the service holds (bench/capacity.py finds it,
 * in requests per second: divide by 10); {@code -DsurgeFactor} (2), {@code -DcalmShare}
 * of the capacity for the calm phases (0.5), {@code -Dcalm} and {@code -Dsurge} their
 * lengths in seconds (60 each).
 */
public class SurgeSimulation extends MonitoredSimulation {

	static final double CAPACITY = Double.parseDouble(System.getProperty("capacity", "400"));

	static final double SURGE_FACTOR = Double.parseDouble(System.getProperty("surgeFactor", "2"));

	static final double CALM_SHARE = Double.parseDouble(System.getProperty("calmShare", "0.5"));

	static final Duration CALM = Duration.ofSeconds(Long.getLong("calm", 60));

	static final Duration SURGE = Duration.ofSeconds(Long.getLong("surge", 60));

	static final Duration SETTLING = Duration.ofSeconds(5);

	static final String BEFORE = Endpoints.GET_USER + " before";

	static final String DURING = Endpoints.GET_USER + " surge";

	static final String SETTLING_NAME = Endpoints.GET_USER + " first 5 s after";

	static final String AFTER = Endpoints.GET_USER + " after";

	Iterator<Map<String, Object>> ids = Feeders.existingUserIds(this.config.idsFile());

	{
		double calm = CAPACITY * CALM_SHARE;
		setUp(phase(BEFORE, Duration.ZERO, calm, CALM), phase(DURING, CALM, CAPACITY * SURGE_FACTOR, SURGE),
				phase(SETTLING_NAME, CALM.plus(SURGE), calm, SETTLING),
				phase(AFTER, CALM.plus(SURGE).plus(SETTLING), calm, CALM))
			.protocols(protocol())
			.assertions(details(AFTER).failedRequests().count().is(0L),
					details(AFTER).responseTime().percentile(99.0).lte(this.config.p99Millis()));
	}

	public SurgeSimulation() {
		super(LoadConfig.read(0, 10));
	}

	private PopulationBuilder phase(String name, Duration start, double usersPerSecond, Duration length) {
		return scenario(name).exec(repeat(10).on(feed(this.ids), Endpoints.getUser(name)))
			.injectOpen(nothingFor(start), constantUsersPerSec(usersPerSecond).during(length));
	}

	@Override
	public void before() {
		System.out.printf("surge: %.0f users/s calm, %.0f users/s for %d s (capacity %.0f users/s)%n",
				CAPACITY * CALM_SHARE, CAPACITY * SURGE_FACTOR, SURGE.toSeconds(), CAPACITY);
		super.before();
	}

}
