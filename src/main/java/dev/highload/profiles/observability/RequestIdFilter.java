package dev.highload.profiles.observability;

import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.MDC;

import org.springframework.boot.web.servlet.FilterRegistration;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Gives every request an id: the caller's {@code X-Request-Id} if it is a sane token,
 * otherwise a new one. It is echoed in the response header, put in the logging context
 * and carried by every problem response as {@code request_id}.
 */
@Component
// On the dispatch that follows a body read whole (RequestBodyFilter) and on the error
// dispatch too, which keep the id. A plain filter: OncePerRequestFilter's bookkeeping
// (a request attribute named, read, set and removed on every request) guards against
// forwards and includes, which this service does not make.
@FilterRegistration(order = Ordered.HIGHEST_PRECEDENCE,
		dispatcherTypes = { DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR })
public class RequestIdFilter extends HttpFilter {

	public static final String HEADER = "X-Request-Id";

	public static final String ATTRIBUTE = RequestIdFilter.class.getName() + ".id";

	private static final Pattern ACCEPTED = Pattern.compile("[A-Za-z0-9._-]{1,64}");

	@Override
	protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		// The dispatch that follows a body read whole (RequestBodyFilter) keeps the id.
		String id = (request.getAttribute(ATTRIBUTE) instanceof String given) ? given : request.getHeader(HEADER);
		if (id == null || !ACCEPTED.matcher(id).matches()) {
			id = newId();
		}
		request.setAttribute(ATTRIBUTE, id);
		response.setHeader(HEADER, id);
		MDC.put("request_id", id);
		try {
			chain.doFilter(request, response);
		}
		finally {
			MDC.remove("request_id");
		}
	}

	public static String of(HttpServletRequest request) {
		return orNew(request.getAttribute(ATTRIBUTE));
	}

	/**
	 * @param id the request's {@value #ATTRIBUTE} attribute, or {@code null}
	 * @return the request id, or a new one when there is none
	 */
	public static String orNew(Object id) {
		return (id != null) ? id.toString() : newId();
	}

	/**
	 * A random id in UUID form. A request id only has to be unique enough to find log
	 * lines, not unguessable, so it comes from ThreadLocalRandom rather than
	 * {@link UUID#randomUUID()}'s SecureRandom, which showed in the profile of the point
	 * read on every request.
	 */
	private static String newId() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return new UUID(random.nextLong(), random.nextLong()).toString();
	}

}
