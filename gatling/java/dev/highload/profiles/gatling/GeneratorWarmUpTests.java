package dev.highload.profiles.gatling;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The stub the load generator warms itself on: it answers reads, and stops when closed.
 */
class GeneratorWarmUpTests {

	private final HttpClient client = HttpClient.newHttpClient();

	@Test
	void answersAReadWithJsonUntilClosed() throws Exception {
		URI read;
		try (GeneratorWarmUp stub = GeneratorWarmUp.start()) {
			read = URI.create(stub.baseUrl() + "/user/stub");
			HttpResponse<String> answer = this.client.send(HttpRequest.newBuilder(read).build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(answer.statusCode()).isEqualTo(200);
			assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
			assertThat(answer.body()).startsWith("{\"id\":\"stub\"");
		}
		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(read).build(), HttpResponse.BodyHandlers.ofString()))
			.isInstanceOf(ConnectException.class);
	}

}
