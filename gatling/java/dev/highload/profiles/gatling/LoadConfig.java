package dev.highload.profiles.gatling;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The knobs of every simulation, read from {@code -D} system properties. Each simulation
 * passes its own defaults for the thresholds; everything else is shared. Relative paths
 * are resolved against the repository root, the working directory pom.xml gives Gatling.
 *
 * @param baseUrl the service, {@code -DbaseUrl} (default http://127.0.0.1:8080)
 * @param users virtual users in the run, {@code -Dusers}
 * @param window how long users keep arriving, {@code -Dwindow} in seconds (default 600)
 * @param ramp the first seconds of the window, in which the arrival rate climbs from zero
 * to its constant value, {@code -Dramp} (default 30, 0 for none)
 * @param p99Millis the asserted 99th percentile, {@code -Dp99}
 * @param maxFailedPercent the asserted failed-request percentage, {@code -DmaxFailed}
 * @param idsFile the seeded ids, {@code -DidsFile} (default .data/user-ids.csv, where the
 * seeding command writes them)
 * @param prefixesFile search prefix pairs, {@code -DprefixesFile} (default
 * gatling/data/search-prefixes.csv)
 * @param sourceAddresses how many loopback source addresses to spread connections over,
 * {@code -DsourceAddresses} (default 16: 127.0.0.2 and up)
 */
record LoadConfig(String baseUrl, int users, Duration window, Duration ramp, int p99Millis, double maxFailedPercent,
		Path idsFile, Path prefixesFile, int sourceAddresses) {

	static LoadConfig read(int defaultUsers, int defaultP99Millis) {
		int users = Integer.getInteger("users", defaultUsers);
		return new LoadConfig(System.getProperty("baseUrl", "http://127.0.0.1:8080"), users,
				Duration.ofSeconds(Long.getLong("window", 600)), Duration.ofSeconds(Long.getLong("ramp", 30)),
				Integer.getInteger("p99", defaultP99Millis), Double.parseDouble(System.getProperty("maxFailed", "0")),
				Path.of(System.getProperty("idsFile", ".data/user-ids.csv")),
				Path.of(System.getProperty("prefixesFile", "gatling/data/search-prefixes.csv")),
				Integer.getInteger("sourceAddresses", 16));
	}

	/**
	 * The constant arrival rate after the ramp such that exactly {@link #users} arrive in
	 * the window: {@code rate * ramp / 2 + rate * (window - ramp) = users}.
	 */
	double rate() {
		double ramp = Math.min(this.ramp.toMillis(), this.window.toMillis()) / 1000.0;
		double window = this.window.toMillis() / 1000.0;
		return this.users / (window - ramp / 2);
	}

	/**
	 * Loopback source addresses for the client side of each connection. One address has
	 * about 28,000 ephemeral ports; at hundreds of new connections per second each closed
	 * socket's 60 s TIME_WAIT would exhaust them, and the load generator's own connect
	 * errors would be counted as the server's.
	 */
	List<String> localAddresses() {
		return IntStream.rangeClosed(2, 1 + Math.max(1, this.sourceAddresses)).mapToObj((i) -> "127.0.0." + i).toList();
	}

	boolean loopbackTarget() {
		return this.baseUrl.contains("://127.") || this.baseUrl.contains("://localhost");
	}

}
