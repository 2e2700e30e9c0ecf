package dev.highload.profiles.gatling;

import io.gatling.javaapi.core.ScenarioBuilder;

import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * Each user registers once, with an {@code Idempotency-Key}, and sends it again after a
 * 503 ({@link Endpoints#register()}). Registration is bound by the Argon2id hash (tens of
 * milliseconds of one core), so the default is a gentle 6,000 users over the window (10
 * per second); p99 500 ms.
 */
public class RegisterUserSimulation extends MonitoredSimulation {

	ScenarioBuilder registrants = scenario("one registration per user").exec(feed(Feeders.newUsers()),
			Endpoints.register());

	{
		setUp(this.registrants.injectOpen(arrivals())).protocols(protocol()).assertions(standardAssertions());
	}

	public RegisterUserSimulation() {
		super(LoadConfig.read(6_000, 500));
	}

}
