package dev.highload.profiles.auth;

import java.util.Map;
import java.util.TreeMap;

import dev.highload.profiles.input.ProblemOutcome;
import dev.highload.profiles.consistency.TestConsistencyTokens;
import dev.highload.profiles.input.WebProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.FilterType;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/** What {@code POST /login} accepts, with the service mocked. */
@Import(TestConsistencyTokens.class)
@WebMvcTest(controllers = LoginController.class,
		includeFilters = @ComponentScan.Filter(type = FilterType.REGEX,
				pattern = "dev\\.highload\\.profiles\\.input\\.Strict(JsonConfiguration|ParameterBinding)"))
@EnableConfigurationProperties(WebProperties.class)
class LoginControllerTests {

	private static final String ID = "0190f3c2-7b1e-7a3d-9c4e-1234567890ab";

	@Autowired
	MockMvcTester mvc;

	@MockitoBean
	LoginService logins;

	@MockitoBean
	DeviceCookies devices;

	/**
	 * An unpaired surrogate has no UTF-8 form, so the hash would be computed over a
	 * substitute: "pass\ud800x" would log in as "pass\ud800\udc78", or fail inside the
	 * hasher. Such passwords are refused before anything is hashed.
	 */
	@Test
	void aPasswordThatIsNotValidUnicodeIsRejectedNamingIt() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String password : new String[] { "pass\\ud800x-word", "pass\\udc00word", "password\\ud800",
				"pass\\u0000word" }) {
			outcomes.put(password,
					ProblemOutcome.of(login("{\"id\":\"" + ID + "\",\"password\":\"" + password + "\"}")));
			expected.put(password, "400 password");
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.logins, never()).login(any(), any(), any(), any());
	}

	@Test
	void aRepeatedKeyIsRejectedNamingIt() {
		assertThat(ProblemOutcome.of(login("{\"id\":\"" + ID + "\",\"password\":\"a\",\"password\":\"b\"}")))
			.isEqualTo("400 password");
		assertThat(ProblemOutcome.of(login("{\"id\":\"" + ID + "\",\"id\":\"" + ID + "\",\"password\":\"a\"}")))
			.isEqualTo("400 id");
		verify(this.logins, never()).login(any(), any(), any(), any());
	}

	/**
	 * Jackson also reads 24 characters of Base64 as a UUID, and trims spaces: another
	 * spelling of an id logged in to the same account.
	 */
	@Test
	void anIdIsACanonicalUuidAndNothingElse() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		for (String id : new String[] { "AZDzwnseej2cThI0VniQqw==", " " + ID, ID + "\\u0000", "1-1-1-1-1" }) {
			outcomes.put(id, ProblemOutcome.of(login("{\"id\":\"" + id + "\",\"password\":\"secret-password\"}")));
			expected.put(id, "400 id");
		}
		assertThat(outcomes).isEqualTo(expected);
		verify(this.logins, never()).login(any(), any(), any(), any());
	}

	private MvcTestResult login(String body) {
		return this.mvc.post().uri("/login").contentType(MediaType.APPLICATION_JSON).content(body).exchange();
	}

}
