package dev.highload.profiles.gatling;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;

import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * The reference scenario: users arrive at a constant rate over the window, and each does
 * ten {@code GET /user/{id}} of random seeded users, back to back, over its own
 * connection. {@code -Dusers=250000} and {@code -Dusers=500000} are the two named
 * profiles; the asserted p99 defaults to 3 ms up to 250,000 users and 10 ms above.
 * {@code -DgeneratorWarmUp} warms Gatling first ({@link GeneratorWarmUp}).
 */
public class GetUserSimulation extends MonitoredSimulation {

	static LoadConfig config() {
		int users = Integer.getInteger("users", 250_000);
		return LoadConfig.read(users, (users > 250_000) ? 10 : 3);
	}

	ChainBuilder reads = repeat(10).on(feed(Feeders.existingUserIds(this.config.idsFile())), Endpoints.getUser());

	ScenarioBuilder readers = scenario("10 profile reads per user").exec(this.reads);

	{
		setUp(withGeneratorWarmUp(this.reads, this.readers.injectOpen(afterGeneratorWarmUp(arrivals()))))
			.protocols(protocol())
			.assertions(standardAssertions());
	}

	public GetUserSimulation() {
		super(config());
	}

}
