package dev.highload.profiles.gatling;

import java.time.Duration;
import java.util.UUID;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.http.HttpRequestActionBuilder;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.doIf;
import static io.gatling.javaapi.core.CoreDsl.doWhile;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.regex;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.core.CoreDsl.substring;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.headerRegex;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

/**
 * Every request the simulations make, defined once, each named as Gatling's report and
 * statistics show it. Each asserts its status: a 404 for a seeded id is a failure like
 * any other. A 503 at capacity is a failure too, and the users behave as clients that
 * respect it: a reader leaves, a registration is sent again after {@code Retry-After}.
 */
final class Endpoints {

	static final String GET_USER = "GET /user/{id}";

	static final String SEARCH = "GET /user/search";

	static final String REGISTER = "POST /user/register";

	/** The registered user's own profile, read right after the registration. */
	static final String OWN_PROFILE = "GET /user/{id} own";

	/** A search by the registered user's own names, right after the registration. */
	static final String OWN_SEARCH = "GET /user/search own";

	/**
	 * How many times a registration answered 503 or 409, or not at all, is sent again
	 * with the same key before the user gives up, {@code -DregisterRetries} (default 3).
	 */
	static final int REGISTER_RETRIES = Integer.getInteger("registerRetries", 3);

	/**
	 * The longest {@code Retry-After} the user waits, in seconds; a longer one is cut.
	 */
	private static final long MAX_RETRY_AFTER_SECONDS = 10;

	private Endpoints() {
	}

	/**
	 * What the service's refusal at capacity says in its problem's detail (a 503 for
	 * another reason, such as a database that cannot answer, says something else).
	 */
	static final String AT_CAPACITY = "at capacity";

	/** A seeded user's profile; needs {@code id} in the session. */
	static ChainBuilder getUser() {
		return getUser(GET_USER);
	}

	/**
	 * The same, its requests named {@code name} in the statistics (a phase of a run that
	 * wants its own figures).
	 */
	static ChainBuilder getUser(String name) {
		return read(name, http(name).get("/user/#{id}").check(status().is(200)));
	}

	/**
	 * A seeded user's profile, read by a user who registered first and carries the
	 * registration's token as {@code tokens} says; needs {@code id} in the session.
	 */
	static ChainBuilder getUser(TokenCarrier tokens) {
		return read(GET_USER, tokens.carry(http(GET_USER).get("/user/#{id}")).check(status().is(200)));
	}

	/** A prefix search; needs {@code first_name} and {@code last_name} in the session. */
	static ChainBuilder search() {
		return read(SEARCH,
				http(SEARCH).get("/user/search")
					.queryParam("first_name", "#{first_name}")
					.queryParam("last_name", "#{last_name}")
					.check(status().is(200)));
	}

	/**
	 * A read as a client that respects a refusal sends it: when the service answers 503
	 * at capacity, the user sends nothing more (the {@code Retry-After} it was given is
	 * longer than what is left of its visit). The refusal is a failed request in
	 * Gatling's statistics, and counted and timed apart in the summary
	 * ({@link ClientFigures#shed}); a 200 is timed there too, exactly
	 * ({@link ClientFigures#answered}).
	 */
	private static ChainBuilder read(String name, HttpRequestActionBuilder request) {
		return exec(timeRefusals(request).check(responseTimeInMillis().saveAs("answered_ms"),
				status().saveAs("answered_status")))
			.exec((session) -> {
				boolean refused = refusedAtCapacity(session);
				// The generator's warm-up on its stub is in no statistics, these
				// included.
				if (!GeneratorWarmUp.NAME.equals(session.scenario())) {
					count(name, session, refused);
				}
				return session.remove("at_capacity")
					.remove("refused_ms")
					.remove("answered_ms")
					.remove("answered_status")
					.set("left", refused);
			})
			.exitHereIf((session) -> session.getBoolean("left"));
	}

	/** A read's outcome in {@link ClientFigures}: refused, unanswered or answered 200. */
	private static void count(String name, Session session, boolean refused) {
		if (refused) {
			ClientFigures.shed(name, session.getInt("refused_ms"));
		}
		if (!session.contains("answered_ms")) {
			ClientFigures.unanswered(name);
		}
		else if (session.contains("answered_status") && session.getInt("answered_status") == 200) {
			ClientFigures.answered(name, session.getInt("answered_ms"));
		}
	}

	/**
	 * Adds the checks that tell a refusal at capacity (503 whose problem says so) and
	 * time it; they run on 503 answers only.
	 */
	private static HttpRequestActionBuilder timeRefusals(HttpRequestActionBuilder request) {
		return request.checkIf((response, session) -> response.status().code() == 503)
			.then(substring(AT_CAPACITY).count().saveAs("at_capacity"), responseTimeInMillis().saveAs("refused_ms"));
	}

	private static boolean refusedAtCapacity(Session session) {
		return session.contains("at_capacity") && session.getInt("at_capacity") > 0;
	}

	/**
	 * A registration, as a client that must not register the person twice sends it: with
	 * an {@code Idempotency-Key} (a random UUID, one per registration), and sent again
	 * with the same key and body after a 503 or a 409, or an answer that never came,
	 * after the answer's {@code Retry-After} (1 s without one), at most
	 * {@link #REGISTER_RETRIES} times. Each attempt is a request of its own: a 503 counts
	 * as failed even when the retry succeeds. Needs the fields of
	 * {@link Feeders#newUsers()} in the session; leaves {@code user_id} there when it
	 * succeeded.
	 */
	static ChainBuilder register() {
		return exec((session) -> session.set("idempotency_key", UUID.randomUUID().toString())
			.set("register_attempts", 0)
			.remove("user_id"))
			.doWhile(Endpoints::retryRegistration)
			.on(doIf((session) -> session.getInt("register_attempts") > 0).then(pause(Endpoints::retryAfter)),
					exec((session) -> session.remove("register_status").remove("retry_after")),
					exec(timeRefusals(http(REGISTER).post("/user/register")
						// Quoted: a Structured Field string, as the draft writes it.
						.header("Idempotency-Key", "\"#{idempotency_key}\"")
						.body(StringBody("{\"first_name\":\"#{first_name}\",\"second_name\":\"#{second_name}\","
								+ "\"birthdate\":\"#{birthdate}\",\"password\":\"#{password}\"}"))
						.asJson()
						.check(status().saveAs("register_status"), responseTimeInMillis().saveAs("answered_ms"),
								header("Retry-After").optional().saveAs("retry_after"),
								regex("\"user_id\"\\s*:\\s*\"([0-9a-f-]{36})\"").optional().saveAs("user_id"),
								status().is(200),
								// Every write answers its token in both.
								header(TokenCarrier.HEADER_NAME).saveAs(TokenCarrier.ATTRIBUTE),
								headerRegex("Set-Cookie",
										TokenCarrier.COOKIE_NAME
												+ "=[0-9a-f]{16}\\.[A-Za-z0-9._-]{1,64}\\.[A-Za-z0-9_-]{22};")
									.exists()))),
					exec((session) -> {
						if (refusedAtCapacity(session)) {
							ClientFigures.shed(REGISTER, session.getInt("refused_ms"));
						}
						if (session.contains("register_status") && session.getInt("register_status") == 200) {
							ClientFigures.answered(REGISTER, session.getInt("answered_ms"));
						}
						return session.remove("at_capacity")
							.remove("refused_ms")
							.remove("answered_ms")
							.set("register_attempts", session.getInt("register_attempts") + 1);
					}))
			.exec((session) -> {
				ClientFigures.registration(session.getInt("register_attempts"), session.contains("user_id"));
				return session.remove("register_status").remove("retry_after").remove("register_attempts");
			});
	}

	/**
	 * The registered user's own profile, read with the registration's token; needs
	 * {@code user_id} in the session. A 404 is a read-your-writes miss.
	 */
	static ChainBuilder ownProfile(TokenCarrier tokens) {
		return read(OWN_PROFILE, tokens.carry(http(OWN_PROFILE).get("/user/#{user_id}"))
			.check(status().saveAs("status"), status().is(200))).exec((session) -> {
				ClientFigures.ownProfile(session.contains("status") && session.getInt("status") == 404);
				return session.remove("status");
			});
	}

	/**
	 * A search by the registered user's own first and last names, with the registration's
	 * token; needs {@code user_id}, {@code first_name} and {@code second_name} in the
	 * session. A page without the user is a read-your-writes miss, and a failed request.
	 */
	static ChainBuilder ownSearch(TokenCarrier tokens) {
		HttpRequestActionBuilder search = tokens.carry(http(OWN_SEARCH).get("/user/search")
			.queryParam("first_name", "#{first_name}")
			.queryParam("last_name", "#{second_name}"));
		return read(OWN_SEARCH, search.check(status().saveAs("status"),
				substring("#{user_id}").count().saveAs("own_hits"), status().is(200), substring("#{user_id}").exists()))
			.exec((session) -> {
				ClientFigures
					.ownSearch(session.contains("status") && session.getInt("status") == 200 && !ownHit(session));
				return session.remove("status").remove("own_hits");
			});
	}

	private static boolean ownHit(Session session) {
		return session.contains("own_hits") && session.getInt("own_hits") > 0;
	}

	private static boolean retryRegistration(Session session) {
		if (session.contains("user_id") || session.getInt("register_attempts") > REGISTER_RETRIES) {
			return false;
		}
		if (!session.contains("register_status")) {
			return true;
		}
		int status = session.getInt("register_status");
		return status == 503 || status == 409;
	}

	private static Duration retryAfter(Session session) {
		long seconds = 1;
		if (session.contains("retry_after")) {
			try {
				seconds = Long.parseLong(session.getString("retry_after").strip());
			}
			catch (NumberFormatException ex) {
				// An HTTP date: rare enough here to wait the default second.
			}
		}
		return Duration.ofSeconds(Math.max(0, Math.min(seconds, MAX_RETRY_AFTER_SECONDS)));
	}

}
