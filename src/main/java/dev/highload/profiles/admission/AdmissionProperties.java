package dev.highload.profiles.admission;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Admission control of the API ({@code app.admission.*}): a limit on the requests that
 * run at once, moved by one objective, the p99 latency the service promises, and a share
 * of it kept for registrations and another for logins. A request over the limit is
 * answered 503 with {@code Retry-After} before it touches the database.
 *
 * @param enabled off: every request runs, however many are running already
 * @param objective the p99 latency the service promises for its reads, the one setting to
 * choose: the limit comes down while the reads' p99 threatens it and grows back while it
 * holds, and a read that waited for a request thread longer than three fifths of it (a
 * fifth while the queue stands) is refused at once. 50 ms by default: at most a few
 * milliseconds in the service's own work below its capacity, so that a busy machine alone
 * (a garbage collection, the load generator of a test on the same cores) does not read as
 * overload, and short enough that a page making several calls stays quick. A request over
 * the limit waits for a place at most a fifth of it while the limit has had room in the
 * last 300 ms (a burst), a tenth of it once the limit has been full longer (overload),
 * less its wait for a thread
 * @param minLimit the lowest the limit falls to while the objective is threatened: about
 * what keeps the machine's cores and the read pools (8 connections a node) busy, so that
 * a limit brought down by a burst still serves at capacity
 * @param maxLimit the limit at start, and where it stays while the objective holds: past
 * about as many requests as the read pools have connections, more at once only wait in
 * the pools, and 64 running reads take about 13 ms each on a 2-core machine serving 5,000
 * a second, well within the objective
 * @param waitingMax how many requests over the limit may wait for a place at most; past
 * that one is refused at once. The newest waiting request gets the next free place (the
 * oldest is the likeliest to have been given up by its client). 32 by default, more than
 * Tomcat's threads (server.tomcat.threads.max, 16): the threads are the bound, and a
 * burst waits rather than being refused while the limit is not congested; under
 * congestion each waits a tenth of the objective at most, so the threads turn over fast
 * enough to refuse whatever waits in Tomcat's queue behind them within milliseconds
 * @param registrationShare the share of the limit that registrations ({@code POST
 * /user/register}) keep when other requests fill the rest: past the limit a read or a
 * login is refused while registrations still have room in theirs
 * @param loginShare the same for logins ({@code POST /login}): a flood of logins (wrong
 * passwords from many addresses) fills the logins' share and is refused past it, and
 * leaves the registrations' share to registrations
 * @param retryAfter what the 503 tells the client to wait, in whole seconds
 */
@ConfigurationProperties("app.admission")
public record AdmissionProperties(@DefaultValue("true") boolean enabled, @DefaultValue("50ms") Duration objective,
		@DefaultValue("16") int minLimit, @DefaultValue("64") int maxLimit, @DefaultValue("32") int waitingMax,
		@DefaultValue("0.125") double registrationShare, @DefaultValue("0.125") double loginShare,
		@DefaultValue("1s") Duration retryAfter) {

	public AdmissionProperties {
		if (objective.toMillis() < 10 || objective.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("app.admission.objective must be whole milliseconds, at least 10ms");
		}
		if (minLimit < 1 || maxLimit < minLimit) {
			throw new IllegalArgumentException("app.admission limits must satisfy 1 <= min-limit <= max-limit");
		}
		if (waitingMax < 0) {
			throw new IllegalArgumentException("app.admission.waiting-max must be 0 or more");
		}
		if (registrationShare <= 0 || loginShare <= 0 || registrationShare + loginShare >= 1) {
			throw new IllegalArgumentException("app.admission.registration-share and login-share must be positive, "
					+ "and leave reads a share: their sum below 1");
		}
		if (retryAfter.toSeconds() < 1 || retryAfter.toMillis() % 1000 != 0) {
			throw new IllegalArgumentException(
					"app.admission.retry-after must be a whole number of seconds, at least 1");
		}
	}

}
