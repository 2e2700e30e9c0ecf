package dev.highload.profiles.input;

import dev.highload.profiles.problem.Problems;
import jakarta.servlet.FilterChain;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

class CanonicalPathFilterTests {

	@ParameterizedTest
	@ValueSource(strings = { "/", "/login", "/user/register", "/user/0190b7a4-0f7b-7c3e-8d2a-1a2b3c4d5e6f",
			"/user/get/0190b7a4-0f7b-7c3e-8d2a-1a2b3c4d5e6f", "/user/search", "/user/me", "/user/.well-known", "/a/...",
			"/user/" })
	void plainPathsPass(String path) throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		FilterChain chain = new MockFilterChain();
		new CanonicalPathFilter().doFilter(request(path), response, chain);
		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(((MockFilterChain) chain).getRequest()).as("passed on").isNotNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "/login;x=1", "/login;", "/%6Cogin", "/user/%2e%2e/login", "//login", "/user//me",
			"/user/../login", "/user/./me", "/user/..", "/.", "/user\\me", "" })
	void pathsAProxyWouldReadOtherwiseAre400(String path) throws Exception {
		MockHttpServletRequest request = request(path);
		MockHttpServletResponse response = new MockHttpServletResponse();
		MockFilterChain chain = new MockFilterChain();
		new CanonicalPathFilter().doFilter(request, response, chain);
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(chain.getRequest()).as("not passed on").isNull();
		assertThat(request.getAttribute(Problems.DETAIL_ATTRIBUTE)).asString().contains("plainly");
	}

	private static MockHttpServletRequest request(String path) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", path);
		request.setRequestURI(path);
		return request;
	}

}
