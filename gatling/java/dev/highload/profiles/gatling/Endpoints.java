package dev.highload.profiles.gatling;

import io.gatling.javaapi.core.ChainBuilder;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

/**
 * Every request the simulations make, defined once. Each saves its status and response
 * time for {@link LatencyRecorder}, then asserts the status: a 404 for a seeded id is a
 * failure like any other.
 */
final class Endpoints {

	static final String GET_USER = "GET /user/{id}";

	static final String SEARCH = "GET /user/search";

	static final String REGISTER = "POST /user/register";

	private Endpoints() {
	}

	/** A seeded user's profile; needs {@code id} in the session. */
	static ChainBuilder getUser() {
		return exec(http(GET_USER).get("/user/#{id}")
			.check(responseTimeInMillis().saveAs("rt"), status().saveAs("status"), status().is(200)))
			.exec(LatencyRecorder.record(GET_USER, 200));
	}

	/** A prefix search; needs {@code first_name} and {@code last_name} in the session. */
	static ChainBuilder search() {
		return exec(http(SEARCH).get("/user/search")
			.queryParam("first_name", "#{first_name}")
			.queryParam("last_name", "#{last_name}")
			.check(responseTimeInMillis().saveAs("rt"), status().saveAs("status"), status().is(200)))
			.exec(LatencyRecorder.record(SEARCH, 200));
	}

	/** A registration; needs the fields of {@link Feeders#newUsers()} in the session. */
	static ChainBuilder register() {
		return exec(http(REGISTER).post("/user/register")
			.body(StringBody("{\"first_name\":\"#{first_name}\",\"second_name\":\"#{second_name}\","
					+ "\"birthdate\":\"#{birthdate}\",\"password\":\"#{password}\"}"))
			.asJson()
			.check(responseTimeInMillis().saveAs("rt"), status().saveAs("status"), status().is(200)))
			.exec(LatencyRecorder.record(REGISTER, 200));
	}

}
