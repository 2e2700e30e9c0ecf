package dev.highload.profiles.admission;

import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class AdmissionFilterTests {

	private final AdmissionControl control = new AdmissionControl(
			new AdmissionProperties(true, Duration.ofMillis(50), 1, 1, 0, 0.125, 0.125, Duration.ofSeconds(2)),
			new SimpleMeterRegistry());

	private final AdmissionFilter filter = new AdmissionFilter(this.control);

	@Test
	void aRequestOverTheLimitIsRefusedAtOnceAndTheConnectionClosed() throws Exception {
		this.control.admit(new MockHttpServletRequest("GET", "/user/search")).orElseThrow();
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/user/search");
		MockHttpServletResponse response = new MockHttpServletResponse();
		MockFilterChain chain = new MockFilterChain();

		this.filter.doFilter(request, response, chain);

		assertThat(chain.getRequest()).as("the chain ran").isNull();
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader("Retry-After")).isEqualTo("2");
		assertThat(response.getHeader("Connection")).isEqualTo("close");
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		assertThat(response.getContentAsString()).matches("\\{\"detail\":\"" + AdmissionFilter.DETAIL
				+ "\",\"instance\":\"/user/search\",\"status\":503,\"title\":\"Service Unavailable\","
				+ "\"request_id\":\"[0-9a-f-]{36}\",\"message\":\"" + AdmissionFilter.DETAIL + "\",\"code\":503}");
		assertThat(response.getContentLength()).isEqualTo(response.getContentAsByteArray().length);
	}

	@Test
	void anAdmittedRequestRunsAndGivesItsPlaceBackWhenItEnds() throws Exception {
		MockFilterChain chain = new MockFilterChain();
		this.filter.doFilter(new MockHttpServletRequest("GET", "/user/search"), new MockHttpServletResponse(), chain);

		assertThat(chain.getRequest()).isNotNull();
		assertThat(this.control.running()).isZero();
	}

	@Test
	void aRequestThatThrowsGivesItsPlaceBackToo() {
		MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {

			@Override
			protected void service(jakarta.servlet.http.HttpServletRequest request, HttpServletResponse response)
					throws ServletException {
				throw new ServletException("boom");
			}

		});
		assertThatExceptionOfType(ServletException.class).isThrownBy(() -> this.filter
			.doFilter(new MockHttpServletRequest("GET", "/user/search"), new MockHttpServletResponse(), chain));
		assertThat(this.control.running()).isZero();
	}

}
