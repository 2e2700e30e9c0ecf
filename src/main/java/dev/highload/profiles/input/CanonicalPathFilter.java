package dev.highload.profiles.input;

import java.io.IOException;

import dev.highload.profiles.problem.Problems;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.web.servlet.FilterRegistration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Answers 400 to a request whose path is not written the one way the API's paths are:
 * with a path parameter ({@code /login;x=1}), a percent-escape ({@code /%6Cogin}), an
 * empty segment ({@code //login}) or a dot segment ({@code /user/../login}). Tomcat would
 * take each of them for the plain path, while a proxy in front that matches the path as
 * written (the HA deployment's HAProxy counts logins by {@code path /login}) would not:
 * such a request could walk around its limits. No path of this API needs any of them: ids
 * are UUIDs, and text travels in the query string, which this does not look at.
 */
@Component
// On the dispatch that follows a body read whole (RequestBodyFilter) too: a POST is
// checked there.
@FilterRegistration(order = Ordered.HIGHEST_PRECEDENCE + 4,
		dispatcherTypes = { DispatcherType.REQUEST, DispatcherType.ASYNC })
class CanonicalPathFilter extends HttpFilter {

	@Override
	protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (!canonical(request.getRequestURI())) {
			request.setAttribute(Problems.DETAIL_ATTRIBUTE,
					"The request path must be written plainly: no ';', '%' escapes, empty or dot segments");
			response.sendError(HttpStatus.BAD_REQUEST.value());
			return;
		}
		chain.doFilter(request, response);
	}

	/**
	 * @param path the path as the client wrote it ({@code getRequestURI()}: not decoded,
	 * not normalised)
	 * @return whether it has no path parameter, escape, empty or dot segment
	 */
	static boolean canonical(String path) {
		if (path.isEmpty() || path.charAt(0) != '/') {
			return false;
		}
		int segmentStart = 1;
		for (int i = 1; i <= path.length(); i++) {
			char c = (i < path.length()) ? path.charAt(i) : '/';
			if (c == ';' || c == '%' || c == '\\') {
				return false;
			}
			if (c == '/') {
				int length = i - segmentStart;
				boolean last = i == path.length();
				if ((length == 0 && !last) || (length == 1 && path.charAt(segmentStart) == '.')
						|| (length == 2 && path.charAt(segmentStart) == '.' && path.charAt(segmentStart + 1) == '.')) {
					return false;
				}
				segmentStart = i + 1;
			}
		}
		return true;
	}

}
