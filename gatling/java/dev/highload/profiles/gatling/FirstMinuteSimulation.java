package dev.highload.profiles.gatling;

import java.time.Duration;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * {@link GetUserSimulation}'s load, its requests named by the minute their user arrived
 * in: {@code GET /user/{id} first minute} and {@code GET /user/{id} after}. Started the
 * moment the service reports ready, it tells whether a fresh instance serves its first
 * minute as it serves the rest: Gatling's statistics give each name its own count of
 * failures and its own percentiles. Same knobs and defaults as GetUserSimulation; the
 * window must be longer than a minute.
 * <p>
 * With {@code -DgeneratorWarmUp} the service's first request comes after Gatling's own
 * warm-up ({@link GeneratorWarmUp}).
 */
public class FirstMinuteSimulation extends MonitoredSimulation {

	static final Duration MINUTE = Duration.ofSeconds(60);

	static final String FIRST = Endpoints.GET_USER + " first minute";

	static final String AFTER = Endpoints.GET_USER + " after";

	/** The seeded ids, read once for the three populations' feeders. */
	private final String[] ids = Feeders.userIds(this.config.idsFile());

	{
		if (this.config.window().compareTo(MINUTE) <= 0 || this.config.ramp().compareTo(MINUTE) > 0) {
			throw new IllegalArgumentException("-Dwindow must be over 60 s and -Dramp at most 60 s");
		}
		double rate = this.config.rate();
		setUp(withGeneratorWarmUp(reads(Endpoints.GET_USER), readers(FIRST, afterGeneratorWarmUp(arrivals(MINUTE))),
				readers(AFTER,
						afterGeneratorWarmUp(nothingFor(MINUTE),
								constantUsersPerSec(rate).during(this.config.window().minus(MINUTE))))))
			.protocols(protocol())
			.assertions(standardAssertions());
	}

	public FirstMinuteSimulation() {
		super(GetUserSimulation.config());
	}

	private PopulationBuilder readers(String name, OpenInjectionStep[] arrivals) {
		return scenario(name).exec(reads(name)).injectOpen(arrivals);
	}

	private ChainBuilder reads(String name) {
		return repeat(10).on(feed(Feeders.randomIds(this.ids)), Endpoints.getUser(name));
	}

}
