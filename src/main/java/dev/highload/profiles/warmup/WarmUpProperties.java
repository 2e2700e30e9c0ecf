package dev.highload.profiles.warmup;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The warm-up before readiness ({@code app.warm-up.*}).
 *
 * @param enabled off: the service reports ready as soon as it has started, with its hot
 * paths still interpreted (a cold JVM spends several times a warm one's CPU per request
 * for its first minutes under load)
 * @param clients how many connections send the warm-up's requests at once; unset, as many
 * as Tomcat has request threads ({@code server.tomcat.threads.max}), so that every thread
 * is busy and requests wait in Tomcat's queue, for the read pools and for the admission
 * limit, and the code of those waits is compiled before a client meets it (warmed from 4
 * connections, a fresh service first compiled that code under load, and threw away and
 * compiled again much that it had compiled before)
 * @param minTime the warm-up runs at least this long
 * @param maxTime and at most this long: past it the service reports ready, warm or not,
 * and says so in its log
 * @param settled the JIT has settled once it spends less than this share of one core
 * compiling, over each of two seconds in a row
 */
@ConfigurationProperties("app.warm-up")
public record WarmUpProperties(@DefaultValue("true") boolean enabled, Integer clients,
		@DefaultValue("10s") Duration minTime, @DefaultValue("90s") Duration maxTime,
		@DefaultValue("0.05") double settled) {

	public WarmUpProperties {
		if (clients != null && clients < 1) {
			throw new IllegalArgumentException("app.warm-up.clients must be at least 1");
		}
		if (minTime.isNegative() || maxTime.compareTo(minTime) < 0) {
			throw new IllegalArgumentException("app.warm-up times must satisfy 0 <= min-time <= max-time");
		}
		if (!(settled > 0 && settled < 1)) {
			throw new IllegalArgumentException("app.warm-up.settled must be between 0 and 1, both excluded");
		}
	}

}
