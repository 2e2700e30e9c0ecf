package dev.highload.profiles.gatling;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
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
 * {@code -DgeneratorWarmUp} (seconds, default 0) first warms Gatling's own JVM for that
 * long on a stub server inside it ({@link GeneratorWarmUp}); the service's first request
 * comes after it.
 */
public class FirstMinuteSimulation extends MonitoredSimulation {

	static final Duration MINUTE = Duration.ofSeconds(60);

	static final String FIRST = Endpoints.GET_USER + " first minute";

	static final String AFTER = Endpoints.GET_USER + " after";

	private final Duration generatorWarmUp = Duration.ofSeconds(Long.getLong("generatorWarmUp", 0));

	private final GeneratorWarmUp stub = this.generatorWarmUp.isZero() ? null : GeneratorWarmUp.start();

	{
		if (this.config.window().compareTo(MINUTE) <= 0 || this.config.ramp().compareTo(MINUTE) > 0) {
			throw new IllegalArgumentException("-Dwindow must be over 60 s and -Dramp at most 60 s");
		}
		double rate = this.config.rate();
		Duration ramp = this.config.ramp();
		OpenInjectionStep[] first = ramp.isZero() ? new OpenInjectionStep[] { constantUsersPerSec(rate).during(MINUTE) }
				: new OpenInjectionStep[] { rampUsersPerSec(rate / 100).to(rate).during(ramp),
						constantUsersPerSec(rate).during(MINUTE.minus(ramp)) };
		List<PopulationBuilder> populations = new ArrayList<>();
		populations.add(readers(FIRST, after(this.generatorWarmUp, first)));
		populations.add(readers(AFTER, after(this.generatorWarmUp.plus(MINUTE),
				constantUsersPerSec(rate).during(this.config.window().minus(MINUTE)))));
		if (this.stub != null) {
			populations.add(this.stub.users(rate, ramp, this.generatorWarmUp));
		}
		setUp(populations).protocols(protocol()).assertions(standardAssertions());
	}

	public FirstMinuteSimulation() {
		super(GetUserSimulation.config());
	}

	@Override
	public void after() {
		if (this.stub != null) {
			this.stub.close();
		}
		super.after();
	}

	/** The steps, after nothing for {@code pause} (none when it is zero). */
	private static OpenInjectionStep[] after(Duration pause, OpenInjectionStep... steps) {
		if (pause.isZero()) {
			return steps;
		}
		OpenInjectionStep[] delayed = new OpenInjectionStep[steps.length + 1];
		delayed[0] = nothingFor(pause);
		System.arraycopy(steps, 0, delayed, 1, steps.length);
		return delayed;
	}

	private PopulationBuilder readers(String name, OpenInjectionStep[] arrivals) {
		return scenario(name)
			.exec(repeat(10).on(feed(Feeders.existingUserIds(this.config.idsFile())), Endpoints.getUser(name)))
			.injectOpen(arrivals);
	}

}
