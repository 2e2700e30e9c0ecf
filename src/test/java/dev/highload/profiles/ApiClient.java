package dev.highload.profiles;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import javax.net.ssl.SSLContext;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plain HTTP client for the integration tests: what a user of the API sends and sees.
 */
public final class ApiClient {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http;

	private final String base;

	public ApiClient(int port) {
		this("127.0.0.1", port);
	}

	public ApiClient(String host, int port) {
		this.base = "http://" + host + ":" + port;
		this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
	}

	/**
	 * A client of a service behind HTTPS.
	 * @param base scheme, host and port, such as {@code https://127.0.0.1:8443}
	 * @param trust what the client trusts: the CA of the service's certificate
	 */
	public ApiClient(URI base, SSLContext trust) {
		this.base = base.toString().replaceAll("/$", "");
		this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(trust).build();
	}

	public Response get(String path, String... headers) {
		return send(withHeaders(HttpRequest.newBuilder(URI.create(this.base + path)).GET(), headers));
	}

	/** Posts JSON, with headers given as name, value, name, value... */
	public Response post(String path, String body, String... headers) {
		return send(withHeaders(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body)), headers));
	}

	/** Posts these exact bytes as JSON: for bodies that are not valid UTF-8. */
	public Response post(String path, byte[] body) {
		return send(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofByteArray(body)));
	}

	/** Posts the body without a Content-Length (chunked), as a streaming client would. */
	public Response postChunked(String path, String body) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		return send(HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))));
	}

	public Response search(Map<String, String> parameters) {
		String query = parameters.entrySet()
			.stream()
			.map((e) -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
			.collect(Collectors.joining("&"));
		return get("/user/search?" + query);
	}

	/**
	 * A random name of letters only, as the API's name rule wants, unique enough per
	 * test.
	 */
	public static String uniqueName() {
		StringBuilder name = new StringBuilder("T");
		for (int i = 0; i < 11; i++) {
			name.append((char) ('a' + ThreadLocalRandom.current().nextInt(26)));
		}
		return name.toString();
	}

	/** Registers a user and returns the id, failing unless the service answers 200. */
	public UUID register(String firstName, String secondName, String password) {
		Response response = post("/user/register", registration(firstName, secondName, password));
		if (response.status() != 200) {
			throw new AssertionError("Registration failed: " + response.status() + " " + response.body());
		}
		return UUID.fromString(response.json().get("user_id").asString());
	}

	public static String registration(String firstName, String secondName, String password) {
		return toJson(Map.of("first_name", firstName, "second_name", secondName, "birthdate", "1990-05-17", "biography",
				"Integration tests", "city", "Москва", "password", password));
	}

	public static String toJson(Object value) {
		return json.writeValueAsString(value);
	}

	private static HttpRequest.Builder withHeaders(HttpRequest.Builder request, String... headers) {
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return request;
	}

	private Response send(HttpRequest.Builder request) {
		try {
			HttpResponse<String> response = this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
					HttpResponse.BodyHandlers.ofString());
			return new Response(response.statusCode(), response.headers(), response.body());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What came back.
	 *
	 * @param status HTTP status
	 * @param headers response headers
	 * @param body response body
	 */
	public record Response(int status, HttpHeaders headers, String body) {

		public JsonNode json() {
			return json.readTree(this.body);
		}

		public String contentType() {
			return this.headers.firstValue("Content-Type").orElse("");
		}

	}

}
