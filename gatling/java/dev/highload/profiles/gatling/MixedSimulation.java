package dev.highload.profiles.gatling;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;

import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.core.CoreDsl.randomSwitchOrElse;
import static io.gatling.javaapi.core.CoreDsl.repeat;
import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * Reads with a small share of writes: every user does ten profile reads, and
 * {@code -DregisterPercent} of them (default 1) register first. Default 250,000 users;
 * the reads are asserted at p99 10 ms ({@code -Dp99}), the registrations at 500 ms
 * ({@code -DregisterP99}).
 * <p>
 * A user who registers is a client that wants to see its write: it reads its own profile
 * and searches for its own names at once, carrying the registration's consistency token
 * ({@code -DconsistencyToken}: the cookie by default, see {@link TokenCarrier}), and
 * carries it through its ten reads too. A 404 for its own id, or a search page without
 * it, is a read-your-writes miss: the summary counts them, and the run fails on one.
 * These two reads are requests of their own, beside the ten.
 */
public class MixedSimulation extends MonitoredSimulation {

	static final double REGISTER_PERCENT = Double.parseDouble(System.getProperty("registerPercent", "1"));

	static final int REGISTER_P99 = Integer.getInteger("registerP99", 500);

	static final TokenCarrier TOKENS = TokenCarrier.fromSystemProperty();

	Iterator<Map<String, Object>> seededIds = Feeders.existingUserIds(this.config.idsFile());

	ChainBuilder tenReads = repeat(10).on(feed(this.seededIds), Endpoints.getUser());

	ChainBuilder registerThenRead = feed(Feeders.newUsers()).exec(Endpoints.register())
		.doIf((session) -> session.contains("user_id"))
		.then(TOKENS.afterWrite(), Endpoints.ownProfile(TOKENS), Endpoints.ownSearch(TOKENS))
		.exec(repeat(10).on(feed(this.seededIds), Endpoints.getUser(TOKENS)));

	ScenarioBuilder visitors = scenario("10 reads, some users register first")
		.exec(randomSwitchOrElse().on(percent(REGISTER_PERCENT).then(this.registerThenRead)).orElse(this.tenReads));

	{
		setUp(this.visitors.injectOpen(arrivals())).protocols(protocol())
			.assertions(details(Endpoints.GET_USER).responseTime().percentile(99.0).lte(this.config.p99Millis()),
					details(Endpoints.REGISTER).responseTime().percentile(99.0).lte(REGISTER_P99),
					global().failedRequests().percent().lte(this.config.maxFailedPercent()),
					// Read-your-writes: whatever -DmaxFailed allows, a miss fails them.
					details(Endpoints.OWN_PROFILE).failedRequests().count().is(0L),
					details(Endpoints.OWN_SEARCH).failedRequests().count().is(0L));
	}

	public MixedSimulation() {
		super(LoadConfig.read(250_000, 10));
	}

	@Override
	String clientSummary() {
		return "consistency token after a registration: " + TOKENS.name().toLowerCase(Locale.ROOT)
				+ " (-DconsistencyToken)\n" + super.clientSummary();
	}

}
