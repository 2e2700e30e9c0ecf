package dev.highload.profiles.observability;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.web.servlet.FilterRegistration;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Times every API request into the timer {@code http.server.requests}, with the tags
 * Spring's own request observation gives it ({@code method}, {@code uri} as the matched
 * pattern, {@code status}, {@code outcome}, {@code exception} and {@code error}), so that
 * the dashboard and any query written for a Spring Boot service read it unchanged; the
 * distribution settings of {@code management.metrics.distribution} apply to it as to any
 * timer of that name.
 * <p>
 * In place of Spring's {@code ServerHttpObservationFilter}, whose auto-configuration is
 * excluded: an observation per request builds a context, computes key values (the full
 * URL among them, which no meter uses), runs its handlers and looks its timer up in the
 * registry by name and tags. A keep-alive GET cost measurably more CPU with it than
 * without it, in alternating rounds (docs/reports/controls.md, "Earlier runs"). Here a
 * request costs two clock reads, a lookup of its timer by four strings, and the timer's
 * record. Tracing is not in this service; a service that adds it would want the
 * observation back.
 */
@Component
// After the body has arrived (RequestBodyFilter): a request is timed from then, on the
// dispatch that follows its body.
@FilterRegistration(order = Ordered.HIGHEST_PRECEDENCE + 2,
		dispatcherTypes = { DispatcherType.REQUEST, DispatcherType.ASYNC })
class RequestMetricsFilter extends HttpFilter {

	static final String METER = "http.server.requests";

	private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
			"TRACE");

	private final MeterRegistry registry;

	private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * The filter of the application's registry; without one (the web test slices) it
	 * times nothing.
	 */
	@Autowired
	RequestMetricsFilter(ObjectProvider<MeterRegistry> registry) {
		this(registry.getIfAvailable());
	}

	RequestMetricsFilter(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (this.registry == null) {
			chain.doFilter(request, response);
			return;
		}
		long start = System.nanoTime();
		Throwable thrown = null;
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			thrown = ex;
			throw ex;
		}
		finally {
			// An exception that leaves the chain becomes a 500 at the container.
			int status = (thrown != null) ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR : response.getStatus();
			timer(request, status, thrown).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
		}
	}

	private Timer timer(HttpServletRequest request, int status, Throwable thrown) {
		Object handled = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
		Throwable exception = (thrown != null) ? thrown : (handled instanceof Throwable t) ? t : null;
		Key key = new Key(METHODS.contains(request.getMethod()) ? request.getMethod() : "UNKNOWN", uri(request, status),
				status, (exception != null) ? exception.getClass().getSimpleName() : "none");
		return this.timers.computeIfAbsent(key, this::register);
	}

	private Timer register(Key key) {
		return Timer.builder(METER)
			.description("Duration of HTTP server request handling")
			.tag("method", key.method())
			.tag("uri", key.uri())
			.tag("status", Integer.toString(key.status()))
			.tag("outcome", Outcome.forStatus(key.status()).name())
			.tag("exception", key.exception())
			.tag("error", key.exception())
			.register(this.registry);
	}

	/**
	 * The matched pattern, as Spring's convention names a request; never the raw path.
	 */
	private static String uri(HttpServletRequest request, int status) {
		if (request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE) instanceof String pattern) {
			return pattern.isEmpty() ? "root" : pattern;
		}
		if (status == HttpServletResponse.SC_NOT_FOUND) {
			return "NOT_FOUND";
		}
		return (status >= 300 && status < 400) ? "REDIRECTION" : "UNKNOWN";
	}

	private record Key(String method, String uri, int status, String exception) {

	}

}
