package dev.highload.profiles.observability;

import java.util.Map;
import java.util.TreeMap;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The request timer: Spring's meter name and tags, one timer per combination. */
class RequestMetricsFilterTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RequestMetricsFilter filter = new RequestMetricsFilter(this.registry);

	@Test
	void aMatchedRequestIsTimedUnderItsPatternWithSpringsTags() throws Exception {
		for (int i = 0; i < 3; i++) {
			MockHttpServletRequest request = new MockHttpServletRequest("GET", "/user/" + i);
			this.filter.doFilter(request, new MockHttpServletResponse(),
					(req, res) -> req.setAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, "/user/{id}"));
		}
		assertThat(this.registry.getMeters()).hasSize(1);
		Timer timer = this.registry.get(RequestMetricsFilter.METER).timer();
		assertThat(timer.count()).isEqualTo(3);
		assertThat(tags(timer)).isEqualTo(Map.of("method", "GET", "uri", "/user/{id}", "status", "200", "outcome",
				"SUCCESS", "exception", "none", "error", "none"));
	}

	@Test
	void anUnmatchedPathIsNotFoundAndNeverItsRawPath() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("FOO", "/no/such/path");
		this.filter.doFilter(request, new MockHttpServletResponse(),
				(req, res) -> ((HttpServletResponse) res).setStatus(404));
		assertThat(tags(this.registry.get(RequestMetricsFilter.METER).timer())).containsEntry("uri", "NOT_FOUND")
			.containsEntry("method", "UNKNOWN")
			.containsEntry("outcome", "CLIENT_ERROR");
	}

	@Test
	void anExceptionIsNamedWhetherHandledOrThrown() throws Exception {
		MockHttpServletRequest handled = new MockHttpServletRequest("POST", "/user/register");
		this.filter.doFilter(handled, new MockHttpServletResponse(), (req, res) -> {
			req.setAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE, new IllegalArgumentException());
			((HttpServletResponse) res).setStatus(400);
		});
		MockHttpServletRequest thrown = new MockHttpServletRequest("GET", "/user/search");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.filter.doFilter(thrown, new MockHttpServletResponse(), (req, res) -> {
				throw new IllegalStateException("boom");
			}));
		assertThat(tags(this.registry.get(RequestMetricsFilter.METER).tag("status", "400").timer()))
			.containsEntry("exception", "IllegalArgumentException")
			.containsEntry("error", "IllegalArgumentException");
		assertThat(tags(this.registry.get(RequestMetricsFilter.METER).tag("status", "500").timer()))
			.containsEntry("exception", "IllegalStateException")
			.containsEntry("outcome", "SERVER_ERROR")
			.containsEntry("uri", "UNKNOWN");
	}

	private static Map<String, String> tags(Meter meter) {
		Map<String, String> tags = new TreeMap<>();
		for (Tag tag : meter.getId().getTags()) {
			tags.put(tag.getKey(), tag.getValue());
		}
		return tags;
	}

}
