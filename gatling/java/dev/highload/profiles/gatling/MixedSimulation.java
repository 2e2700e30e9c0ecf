package dev.highload.profiles.gatling;

import io.gatling.javaapi.core.ScenarioBuilder;

import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.randomSwitch;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * Reads with a small share of writes: every user does ten profile reads, and
 * {@code -DregisterPercent} of them (default 1) register first. Default 250,000 users;
 * the reads are asserted at p99 10 ms ({@code -Dp99}), the registrations at 500 ms
 * ({@code -DregisterP99}).
 */
public class MixedSimulation extends MonitoredSimulation {

	static final double REGISTER_PERCENT = Double.parseDouble(System.getProperty("registerPercent", "1"));

	static final int REGISTER_P99 = Integer.getInteger("registerP99", 500);

	ScenarioBuilder visitors = scenario("10 reads, some users register first")
		.exec(randomSwitch().on(percent(REGISTER_PERCENT).then(feed(Feeders.newUsers()).exec(Endpoints.register()))))
		.exec(repeat(10).on(feed(Feeders.existingUserIds(this.config.idsFile())), Endpoints.getUser()));

	{
		setUp(this.visitors.injectOpen(arrivals())).protocols(protocol())
			.assertions(details(Endpoints.GET_USER).responseTime().percentile(99.0).lte(this.config.p99Millis()),
					details(Endpoints.REGISTER).responseTime().percentile(99.0).lte(REGISTER_P99),
					global().failedRequests().percent().lte(this.config.maxFailedPercent()));
	}

	public MixedSimulation() {
		super(LoadConfig.read(250_000, 10));
	}

}
