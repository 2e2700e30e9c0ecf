package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalDouble;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service's own CPU figure from its Actuator, for when the service runs where
 * {@code /proc} cannot see it.
 */
final class ActuatorCpu {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final JsonMapper JSON = JsonMapper.builder().build();

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
			// Asked until it answers once: the count is fixed while the service runs.
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
	 * {@code measurements[0].value} of an Actuator metric, when it is a finite number.
	 */
	static OptionalDouble firstMeasurement(String json) {
		try {
			JsonNode value = JSON.readTree(json).path("measurements").path(0).path("value");
			return (value.isNumber() && Double.isFinite(value.asDouble())) ? OptionalDouble.of(value.asDouble())
					: OptionalDouble.empty();
		}
		catch (JacksonException ex) {
			return OptionalDouble.empty();
		}
	}

}
