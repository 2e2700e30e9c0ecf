package dev.highload.profiles.input;

import java.io.UnsupportedEncodingException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Map;
import java.util.TreeMap;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.xml.bind.annotation.XmlRootElement;
import dev.highload.profiles.consistency.TestConsistencyTokens;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.PathVariableMethodArgumentResolver;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The input package's rules on a controller of its own, which knows no feature: each rule
 * is answered by the class that enforces it, as docs/api.md's table lists them. The
 * controller tests of user and auth check the same rules on the real endpoints.
 */
// The slice includes the package's filters, interceptors and advice, but not its
// configuration classes: the JSON rules are added, so bodies are read as in the service.
@WebMvcTest(controllers = WebInputRulesTests.Probe.class,
		includeFilters = @ComponentScan.Filter(type = FilterType.REGEX,
				pattern = "dev\\.highload\\.profiles\\.input\\.Strict(JsonConfiguration|ParameterBinding)"))
@EnableConfigurationProperties(WebProperties.class)
@Import({ WebInputRulesTests.Probe.class, TestConsistencyTokens.class })
class WebInputRulesTests {

	private static final String ID = "0190f3c2-7b1e-7a3d-9c4e-1234567890ab";

	/**
	 * Two letters outside the Basic Multilingual Plane: two code points, four UTF-16
	 * units.
	 */
	private static final String ASTRAL = new String(Character.toChars(0x1D400))
			+ new String(Character.toChars(0x1D401));

	@Autowired
	MockMvcTester mvc;

	@Autowired
	RequestMappingHandlerAdapter adapter;

	@Test
	void strictJsonReadsEachValueAsItsTypeSaysAndEachKeyOnce() {
		// StrictJsonConfiguration.
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String text : new String[] { "1", "1.5", "false" }) {
			outcomes.put("text " + text, post("{\"text\":" + text + "}"));
			expected.put("text " + text, "400 text");
		}
		outcomes.put("twice", post("{\"text\":\"a\",\"text\":\"b\"}"));
		expected.put("twice", "400 text");
		for (String day : new String[] { "12000", "\"1990-01-01T23:00:00Z\"", "\" 1990-01-01\"", "\"1990-02-30\"" }) {
			outcomes.put("day " + day, post("{\"text\":\"a\",\"day\":" + day + "}"));
			expected.put("day " + day, "400 day");
		}
		for (String id : new String[] { "\"1-1-1-1-1\"", "\" " + ID + "\"", "\"AZD_wnseej2cThI0VniQqw==\"" }) {
			outcomes.put("id " + id, post("{\"text\":\"a\",\"id\":" + id + "}"));
			expected.put("id " + id, "400 id");
		}
		// application.yml's spring.jackson.deserialization.
		outcomes.put("trailing tokens", post("{\"text\":\"a\"} {}"));
		expected.put("trailing tokens", "400 (none)");
		outcomes.put("valid", post("{\"text\":\"a\",\"day\":\"1990-01-01\",\"id\":\"" + ID + "\"}"));
		expected.put("valid", "200");
		assertThat(outcomes).isEqualTo(expected);
		assertThat(json(this.mvc.post()
			.uri("/probe")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"text\":\"a\",\"other\":1}")
			.exchange()).path("detail").asString()).isEqualTo("Unknown field 'other'");
	}

	@Test
	void everyJsonStringMustBeStorableAsSent() {
		// StrictJsonConfiguration.StorableStrings, StorableText.
		assertThat(problem(this.mvc.post()
			.uri("/probe")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"text\":\"a\\u0000\"}")
			.exchange())).isEqualTo("400 text: must not contain U+0000");
		assertThat(problem(this.mvc.post()
			.uri("/probe")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"text\":\"\\ud800\"}")
			.exchange())).isEqualTo("400 text: must be valid Unicode (no unpaired UTF-16 surrogate)");
	}

	@Test
	void aBodyMustBeUtf8AndTheProblemNamesTheFieldWithTheFirstBadByte() {
		// Utf8RequestBodies: C0 80 is an overlong U+0000 that Jackson would read.
		byte[] prefix = "{\"text\":\"a\",\"day\":\"".getBytes(StandardCharsets.US_ASCII);
		byte[] body = new byte[prefix.length + 4];
		System.arraycopy(prefix, 0, body, 0, prefix.length);
		body[prefix.length] = (byte) 0xC0;
		body[prefix.length + 1] = (byte) 0x80;
		body[prefix.length + 2] = '"';
		body[prefix.length + 3] = '}';
		MvcTestResult result = this.mvc.post()
			.uri("/probe")
			.contentType(MediaType.APPLICATION_JSON)
			.content(body)
			.exchange();
		assertThat(problem(result)).isEqualTo("400 day: must be valid UTF-8");
		assertThat(json(result).path("detail").asString()).isEqualTo("The request body is not valid UTF-8");
	}

	@Test
	void lengthsAreCountedInCodePoints() {
		// CodePointLength, in a body and in a query parameter, with @Size's message.
		assertThat(post("{\"text\":\"" + ASTRAL + "a\"}")).isEqualTo("200");
		assertThat(problem(this.mvc.post()
			.uri("/probe")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"text\":\"" + ASTRAL + ASTRAL + "\"}")
			.exchange())).isEqualTo("400 text: size must be between 1 and 3");
		assertThat(this.mvc.get().uri("/probe/{id}?name={name}", ID, ASTRAL + "a")).hasStatus(200);
		assertThat(problem(this.mvc.get().uri("/probe/{id}?name={name}", ID, ASTRAL + ASTRAL).exchange()))
			.isEqualTo("400 name: size must be between 1 and 3");
	}

	@Test
	void idsInPathsAndParametersAreCanonicalUuidsOnly() {
		// StrictParameterBinding.
		assertThat(this.mvc.get().uri("/probe/" + ID)).hasStatus(200);
		for (String id : new String[] { "1-1-1-1-1", ID.replace("-", ""), "urn:uuid:" + ID }) {
			assertThat(problem(this.mvc.get().uri(URI.create("/probe/" + id)).exchange())).as(id)
				.startsWith("400 id: must be a valid UUID");
		}
		// An escaped path never reaches the binding (CanonicalPathFilter).
		assertThat(this.mvc.get().uri(URI.create("/probe/%7B" + ID + "%7D"))).hasStatus(400);
		// Path variables named in their annotation, either way.
		String other = UUID.randomUUID().toString();
		assertThat(this.mvc.get().uri("/probe/{id}/{other}", ID, other)).hasStatus(200)
			.bodyText()
			.isEqualTo(ID + " " + other);
		assertThat(problem(this.mvc.get().uri(URI.create("/probe/" + ID + "/1-1-1-1-1")).exchange()))
			.startsWith("400 second: must be a valid UUID");
		// A query parameter goes through the binder and its strict editor.
		assertThat(this.mvc.get().uri("/probe/{id}?after={after}", ID, other)).hasStatus(200);
		assertThat(problem(this.mvc.get().uri("/probe/{id}?after=1-1-1-1-1", ID).exchange()))
			.startsWith("400 after: must be a valid UUID");
	}

	@Test
	void anIdInThePathIsReadWithoutADataBinder() {
		// StrictParameterBinding puts CanonicalUuidPathVariables before Spring MVC's own
		// path variable resolver, which would otherwise take every @PathVariable.
		List<Class<?>> order = this.adapter.getArgumentResolvers().stream().<Class<?>>map(Object::getClass).toList();
		assertThat(order).contains(CanonicalUuidPathVariables.class, PathVariableMethodArgumentResolver.class);
		assertThat(order.indexOf(CanonicalUuidPathVariables.class))
			.isLessThan(order.indexOf(PathVariableMethodArgumentResolver.class));
	}

	@Test
	void integersAreDecimalDigitsOnly() {
		// StrictParameterBinding.
		assertThat(this.mvc.get().uri("/probe/{id}?limit=10", ID)).hasStatus(200);
		for (String limit : new String[] { "0x10", "%2310", "%2B1", "1e1", "99999999999" }) {
			assertThat(problem(this.mvc.get().uri(URI.create("/probe/" + ID + "?limit=" + limit)).exchange())).as(limit)
				.startsWith("400 limit: must be a valid int");
		}
	}

	@Test
	void queryParametersAreGivenOnceAsUtf8TextThatCanBeStored() {
		// StrictQueryParameters.
		Map<String, String> outcomes = new TreeMap<>();
		for (String query : new String[] { "name=a&name=b", "name=%C0%80", "name=%FF", "name=a%00", "na%FFme=a" }) {
			outcomes.put(query, problem(this.mvc.get().uri(URI.create("/probe/" + ID + "?" + query)).exchange()));
		}
		assertThat(outcomes).isEqualTo(Map.of("name=a&name=b", "400 name: must be given once", "name=%C0%80",
				"400 name: must be percent-encoded UTF-8", "name=%FF", "400 name: must be percent-encoded UTF-8",
				"name=a%00", "400 name: must not contain U+0000", "na%FFme=a",
				"400 na%FFme: must be percent-encoded UTF-8"));
	}

	@Test
	void everyAnswerCarriesARequestIdAndEveryProblemTheSameOne() {
		// RequestIdFilter, Problems.
		MvcTestResult sane = this.mvc.get().uri("/probe/1-1-1-1-1").header("X-Request-Id", "trace-42").exchange();
		assertThat(sane).hasHeader("X-Request-Id", "trace-42");
		assertThat(json(sane).path("request_id").asString()).isEqualTo("trace-42");
		assertThat(json(sane).path("instance").asString()).isEqualTo("/probe/1-1-1-1-1");
		MvcTestResult insane = this.mvc.get().uri("/probe/" + ID).header("X-Request-Id", "a b<script>").exchange();
		String made = insane.getResponse().getHeader("X-Request-Id");
		assertThat(UUID.fromString(made).toString()).isEqualTo(made);
	}

	@Test
	void anUnexpectedErrorIs500SayingNothingAboutTheCode() {
		// ProblemDetailsAdvice.
		MvcTestResult result = this.mvc.get().uri("/probe/failing").exchange();
		assertThat(result).hasStatus(500).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		JsonNode problem = json(result);
		assertThat(problem.path("detail").asString())
			.isEqualTo("An unexpected error occurred; quote the request_id when reporting it");
		// The OTUS Highload Architect API's 5xx members.
		assertThat(problem.path("message").asString()).isEqualTo(problem.path("detail").asString());
		assertThat(problem.path("code").isInt()).isTrue();
		assertThat(problem.path("code").asInt()).isEqualTo(500);
		assertThat(problem.toString()).doesNotContain("secret", "IllegalStateException", "Probe");
	}

	@Test
	void jsonIsChosenWithoutNegotiatingOnlyForAPlainAccept() {
		// JsonAnswers: the same answers as content negotiation gives.
		for (String accept : List.of("*/*", "application/json", "application/*")) {
			assertThat(this.mvc.get().uri("/probe/xml").header(HttpHeaders.ACCEPT, accept).exchange()).as(accept)
				.hasStatus(200)
				.hasContentType(MediaType.APPLICATION_JSON);
		}
		assertThat(this.mvc.get().uri("/probe/xml").accept(MediaType.TEXT_HTML).exchange()).hasStatus(406)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(this.mvc.get().uri("/probe/failing").accept(MediaType.APPLICATION_JSON).exchange()).hasStatus(500)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(this.mvc.get().uri("/probe/failing").exchange()).hasStatus(500)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
	}

	@Test
	void answersAreJsonAloneEvenForAJaxbClass() {
		// StrictJsonConfiguration: JAXB is on the classpath (Hibernate's), its converter
		// is not.
		assertThat(this.mvc.get().uri("/probe/xml").accept(MediaType.APPLICATION_XML).exchange()).hasStatus(406);
		assertThat(this.mvc.get().uri("/probe/xml").exchange()).hasStatus(200)
			.hasContentType(MediaType.APPLICATION_JSON)
			.bodyJson()
			.extractingPath("$.name")
			.isEqualTo("x");
	}

	private String post(String body) {
		return ProblemOutcome
			.of(this.mvc.post().uri("/probe").contentType(MediaType.APPLICATION_JSON).content(body).exchange());
	}

	/** "400 field: message" for the first entry of a problem's errors. */
	private static String problem(MvcTestResult result) {
		JsonNode error = json(result).path("errors").path(0);
		return result.getResponse().getStatus() + " " + error.path("field").asString() + ": "
				+ error.path("message").asString();
	}

	private static JsonNode json(MvcTestResult result) {
		try {
			return JsonMapper.shared().readTree(result.getResponse().getContentAsString(StandardCharsets.UTF_8));
		}
		catch (UnsupportedEncodingException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** A controller with one of each kind of input, and nothing behind it. */
	@RestController
	static class Probe {

		@PostMapping("/probe")
		String post(@Valid @RequestBody Body body) {
			return "ok";
		}

		@GetMapping("/probe/{id}")
		String get(@PathVariable UUID id, @RequestParam(defaultValue = "1") int limit,
				@RequestParam(name = "name", required = false) @CodePointLength(min = 1, max = 3) String name,
				@RequestParam(required = false) UUID after) {
			return "ok";
		}

		@GetMapping("/probe/{first}/{second}")
		String pair(@PathVariable("first") UUID one, @PathVariable(name = "second") UUID two) {
			return one + " " + two;
		}

		@GetMapping("/probe/xml")
		XmlAnswer xml() {
			return new XmlAnswer("x");
		}

		@GetMapping("/probe/failing")
		String failing() {
			throw new IllegalStateException("secret detail");
		}

	}

	/** What the XML converter would write, were it there. */
	@XmlRootElement
	record XmlAnswer(@JsonProperty("name") String name) {

	}

	record Body(@JsonProperty("text") @CodePointLength(min = 1, max = 3) String text,
			@JsonProperty("day") LocalDate day, @JsonProperty("id") UUID id) {

	}

}
