package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service's own CPU figure from its Actuator, for when the service runs where
 * {@code /proc} cannot see it.
 */
final class ActuatorCpu {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Pattern VALUE = Pattern.compile("\"value\"\\s*:\\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)");

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

	private final URI usage;

	private final URI count;

	private volatile int cpuCount;

	ActuatorCpu(String baseUrl) {
		String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
		this.usage = URI.create(base + "/actuator/metrics/process.cpu.usage");
		this.count = URI.create(base + "/actuator/metrics/system.cpu.count");
	}

	/**
	 * The service's CPU as % of one core of its machine; empty when the Actuator does not
	 * answer within a second.
	 */
	OptionalDouble percentOfOneCore() {
		if (this.cpuCount == 0) {
			// Asked until it answers once: the count does not change while the service
			// runs.
			get(this.count).ifPresent((value) -> this.cpuCount = (int) Math.round(value));
			if (this.cpuCount == 0) {
				return OptionalDouble.empty();
			}
		}
		OptionalDouble fraction = get(this.usage);
		return fraction.isPresent() ? OptionalDouble.of(fraction.getAsDouble() * 100 * this.cpuCount) : fraction;
	}

	/** The service machine's core count, 0 until the Actuator has told it. */
	int cpuCount() {
		return this.cpuCount;
	}

	private OptionalDouble get(URI uri) {
		HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Accept", "application/json").build();
		try {
			HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == 200) ? firstMeasurement(response.body()) : OptionalDouble.empty();
		}
		catch (IOException ex) {
			return OptionalDouble.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return OptionalDouble.empty();
		}
	}

	/**
	 * {@code measurements[0].value} of an Actuator metric. A regular expression is enough
	 * for this fixed shape, and keeps the monitor free of a JSON library.
	 */
	static OptionalDouble firstMeasurement(String json) {
		int measurements = json.indexOf("\"measurements\"");
		if (measurements < 0) {
			return OptionalDouble.empty();
		}
		Matcher matcher = VALUE.matcher(json);
		if (!matcher.find(measurements)) {
			return OptionalDouble.empty();
		}
		try {
			double value = Double.parseDouble(matcher.group(1));
			return Double.isFinite(value) ? OptionalDouble.of(value) : OptionalDouble.empty();
		}
		catch (NumberFormatException ex) {
			return OptionalDouble.empty();
		}
	}

}
