package dev.highload.profiles.openapi;

import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.highload.profiles.input.CodePointLength;
import dev.highload.profiles.input.WebProperties;
import jakarta.validation.Valid;
import dev.highload.profiles.consistency.TestConsistencyTokens;
import org.junit.jupiter.api.Test;
import org.springdoc.core.configuration.SpringDocConfiguration;
import org.springdoc.core.properties.SpringDocConfigProperties;
import org.springdoc.webmvc.core.configuration.SpringDocWebMvcConfiguration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link ApiDocumentation} adds to the OpenAPI document, on a controller of the
 * test's own: the bounds of {@link CodePointLength} as minLength and maxLength, and the
 * problem responses of {@link ProblemResponses} with their headers.
 */
@WebMvcTest(controllers = ApiDocumentationTests.Documented.class,
		properties = { "springdoc.use-management-port=false", "springdoc.api-docs.path=/v3/api-docs" })
@ImportAutoConfiguration({ SpringDocConfiguration.class, SpringDocConfigProperties.class,
		SpringDocWebMvcConfiguration.class })
@EnableConfigurationProperties(WebProperties.class)
@Import({ ApiDocumentation.class, ApiDocumentationTests.Documented.class, TestConsistencyTokens.class })
class ApiDocumentationTests {

	@Autowired
	MockMvcTester mvc;

	@Test
	void codePointLengthsAreTheDocumentsMinLengthAndMaxLength() {
		JsonNode document = document();
		JsonNode properties = document.path("components").path("schemas").path("Named").path("properties");
		assertThat(properties.path("name").path("minLength").asInt()).isEqualTo(1);
		assertThat(properties.path("name").path("maxLength").asInt()).isEqualTo(100);
		// As springdoc writes @Size(max = ...): the minimum is stated, 0.
		assertThat(properties.path("note").path("minLength").isMissingNode()).isFalse();
		assertThat(properties.path("note").path("minLength").asInt()).isZero();
		assertThat(properties.path("note").path("maxLength").asInt()).isEqualTo(2000);
		JsonNode prefix = document.path("paths").path("/documented/{id}").path("get").path("parameters").path(1);
		assertThat(prefix.path("name").asString()).isEqualTo("prefix");
		assertThat(prefix.path("schema").path("minLength").asInt()).isEqualTo(1);
		assertThat(prefix.path("schema").path("maxLength").asInt()).isEqualTo(100);
	}

	@Test
	void problemResponsesAreProblemJsonWithTheirHeaders() {
		JsonNode document = document();
		JsonNode responses = document.path("paths").path("/documented/{id}").path("get").path("responses");
		assertThat(responses.path("400").path("$ref").asString()).isEqualTo("#/components/responses/BadRequest");
		assertThat(responses.path("503").path("$ref").asString())
			.isEqualTo("#/components/responses/ServiceUnavailable");
		JsonNode unavailable = document.path("components").path("responses").path("ServiceUnavailable");
		JsonNode unavailableSchema = unavailable.path("content").path("application/problem+json").path("schema");
		assertThat(unavailableSchema.path("allOf").path(0).path("$ref").asString())
			.isEqualTo("#/components/schemas/Problem");
		// The OTUS Highload Architect API's members, on every 5xx.
		assertThat(unavailableSchema.path("allOf").path(1).path("required").valueStream().map(JsonNode::asString))
			.containsExactly("message", "code");
		assertThat(document.path("components")
			.path("responses")
			.path("BadRequest")
			.path("content")
			.path("application/problem+json")
			.path("schema")
			.path("$ref")
			.asString()).isEqualTo("#/components/schemas/Problem");
		JsonNode problem = document.path("components").path("schemas").path("Problem").path("properties");
		assertThat(problem.path("message").path("type").asString()).isEqualTo("string");
		assertThat(problem.path("code").path("type").asString()).isEqualTo("integer");
		assertThat(unavailable.path("headers").path("Retry-After").path("required").asBoolean()).isTrue();
		assertThat(document.path("components")
			.path("responses")
			.path("Unauthorized")
			.path("headers")
			.path("WWW-Authenticate")
			.path("schema")
			.path("pattern")
			.asString()).isEqualTo("^Bearer");
	}

	private JsonNode document() {
		try {
			return JsonMapper.shared()
				.readTree(this.mvc.get()
					.uri("/v3/api-docs")
					.exchange()
					.getResponse()
					.getContentAsString(StandardCharsets.UTF_8));
		}
		catch (UnsupportedEncodingException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@RestController
	static class Documented {

		@PostMapping("/documented")
		@ProblemResponses({ 400 })
		String post(@Valid @RequestBody Named named) {
			return "ok";
		}

		@GetMapping("/documented/{id}")
		@ProblemResponses({ 400, 401, 503 })
		String get(@PathVariable UUID id, @RequestParam("prefix") @CodePointLength(min = 1, max = 100) String prefix) {
			return "ok";
		}

	}

	record Named(@JsonProperty("name") @CodePointLength(min = 1, max = 100) String name,
			@JsonProperty("note") @CodePointLength(max = 2000) String note) {

	}

}
