package dev.highload.profiles.gatling;

import io.gatling.javaapi.core.ScenarioBuilder;

import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * Each user does ten prefix searches with pairs drawn from the seeded name distribution
 * (short and long prefixes, common and rare names). Default 25,000 users; p99 10 ms.
 */
public class SearchUserSimulation extends MonitoredSimulation {

	ScenarioBuilder searchers = scenario("10 prefix searches per user")
		.exec(repeat(10).on(feed(Feeders.prefixPairs(this.config.prefixesFile())), Endpoints.search()));

	{
		setUp(this.searchers.injectOpen(arrivals())).protocols(protocol()).assertions(standardAssertions());
	}

	public SearchUserSimulation() {
		super(LoadConfig.read(25_000, 10));
	}

}
