package dev.highload.profiles.user;

import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import dev.highload.profiles.auth.RegistrationThrottle;
import dev.highload.profiles.auth.TokenService;
import dev.highload.profiles.web.WebProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;

/**
 * The controller's HTTP shape, with the service mocked: errors the cluster rarely
 * produces on demand.
 */
@WebMvcTest(UserController.class)
// The slice includes the web package's filters; the body-limit filter needs its settings.
@EnableConfigurationProperties(WebProperties.class)
class UserControllerTests {

	@Autowired
	MockMvcTester mvc;

	@MockitoBean
	UserService users;

	@MockitoBean
	TokenService tokens;

	@MockitoBean
	RegistrationThrottle registrations;

	@Test
	void aDatabaseThatCannotBeReachedIs503WithRetryAfter() {
		given(this.users.get(any())).willThrow(new DataAccessResourceFailureException("connection refused",
				new SQLException("Connection to 127.0.0.1:15433 refused", "08001")));
		assertThat(this.mvc.get().uri("/user/{id}", UUID.randomUUID())).hasStatus(503)
			.hasHeader("Retry-After", "1")
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyJson()
			.extractingPath("$.title")
			.isEqualTo("Database unavailable");
	}

	@Test
	void aTransactionThatCannotStartIs503() {
		given(this.users.register(any())).willThrow(new CannotCreateTransactionException("no connection"));
		assertThat(this.mvc.post()
			.uri("/user/register")
			.contentType(MediaType.APPLICATION_JSON)
			.content("{\"first_name\":\"Ivan\",\"second_name\":\"Petrov\",\"birthdate\":\"1990-01-01\","
					+ "\"password\":\"secret-password\"}"))
			.hasStatus(503)
			.hasHeader("Retry-After", "1");
	}

	@Test
	void anUnexpectedErrorIs500WithoutInternals() throws Exception {
		given(this.users.get(any())).willThrow(new IllegalStateException("secret internal detail"));
		var result = this.mvc.get().uri("/user/{id}", UUID.randomUUID()).exchange();
		assertThat(result).hasStatus(500).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(result.getResponse().getContentAsString()).doesNotContain("IllegalStateException",
				"secret internal detail", "at dev.");
		assertThat(result).bodyJson().extractingPath("$.request_id").asString().isNotBlank();
	}

	@Test
	void problemsAreProblemJsonEvenWhenTheClientAsksForJson() {
		assertThat(this.mvc.get().uri("/user/not-a-uuid").accept(MediaType.APPLICATION_JSON)).hasStatus(400)
			.hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
	}

	@Test
	void aSearchPassesItsPrefixesUntouched() {
		UserProfile profile = new UserProfile(UUID.randomUUID().toString(), "A%_\\", "B", "1990-01-01", null, null);
		given(this.users.search(new SearchQuery("A%_\\", "B", null, 100)))
			.willReturn(List.of(EncodedProfile.of(profile)));
		assertThat(this.mvc.get().uri("/user/search?first_name={f}&last_name=B", "A%_\\")).hasStatus(200)
			.bodyJson()
			.extractingPath("$[0].first_name")
			.isEqualTo("A%_\\");
	}

	@Test
	void aFullPageLinksTheNextOne() {
		UUID last = UUID.randomUUID();
		given(this.users.search(any())).willReturn(List.of(
				EncodedProfile.of(new UserProfile(UUID.randomUUID().toString(), "A", "B", "1990-01-01", null, null)),
				EncodedProfile.of(new UserProfile(last.toString(), "A", "B", "1990-01-01", null, null))));
		assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=2")).hasStatus(200)
			.headers()
			.hasValue("Link",
					"<http://localhost/user/search?first_name=A&last_name=B&limit=2&after=" + last + ">; rel=\"next\"");
		assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&limit=3")).hasStatus(200)
			.doesNotContainHeader("Link");
	}

	@Test
	void anEmptyLimitOrAfterIsRejectedRatherThanTakenAsAbsent() {
		for (String query : new String[] { "limit=", "after=" }) {
			assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&" + query)).hasStatus(400)
				.hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
				.bodyJson()
				.extractingPath("$.errors[0].field")
				.isEqualTo(query.substring(0, query.length() - 1));
		}
	}

	@Test
	void onlyCanonicalUuidsAreIds() {
		for (String id : new String[] { "1-1-1-1-1", "0190f3c27b1e7a3d9c4e1234567890ab",
				"{0190f3c2-7b1e-7a3d-9c4e-1234567890ab}", "0190f3c2-7b1e-7a3d-9c4e-1234567890ab0" }) {
			assertThat(this.mvc.get().uri("/user/{id}", id)).as(id)
				.hasStatus(400)
				.bodyJson()
				.extractingPath("$.errors[0].field")
				.isEqualTo("id");
			assertThat(this.mvc.get().uri("/user/search?first_name=A&last_name=B&after={id}", id)).as(id)
				.hasStatus(400);
		}
		UUID id = UUID.fromString("0190F3C2-7B1E-7A3D-9C4E-1234567890AB");
		given(this.users.get(id)).willReturn(new UserProfile(id.toString(), "A", "B", "1990-01-01", null, null));
		assertThat(this.mvc.get().uri("/user/{id}", "0190F3C2-7B1E-7A3D-9C4E-1234567890AB")).hasStatus(200);
	}

	@Test
	void aGetThatDeclaresAMalformedMultipartBodyIsServedNormally() {
		UUID id = UUID.randomUUID();
		given(this.users.get(id)).willReturn(new UserProfile(id.toString(), "A", "B", "1990-01-01", null, null));
		assertThat(this.mvc.get().uri("/user/{id}", id).contentType("multipart/form-data")).hasStatus(200);
	}

}
