package dev.highload.profiles.input;

import java.util.HashSet;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Query parameters are read from the raw query string before any handler sees them, and
 * refused (400 naming the parameter) when they are ambiguous or not text:
 * <ul>
 * <li>a parameter given twice: binding joins two strings
 * ({@code first_name=A&first_name=B} was a search for "A,B") and takes the first of two
 * numbers ({@code limit=1&limit=2} was 1);</li>
 * <li>bytes that are not UTF-8: Tomcat refuses them without saying which parameter, and
 * other decoders (MockMvc's among them) turn them into U+FFFD, which would then be
 * searched for as if it had been sent;</li>
 * <li>U+0000, as in every other string ({@link StorableText}).</li>
 * </ul>
 * A parameter without a name is left to Tomcat, which refuses the whole query string.
 */
@Configuration(proxyBeanMethods = false)
class StrictQueryParameters implements WebMvcConfigurer {

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(new Check());
	}

	static final class Check implements HandlerInterceptor {

		@Override
		public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
			String query = request.getQueryString();
			if (query == null || query.isEmpty()) {
				return true;
			}
			Set<String> seen = new HashSet<>();
			for (String pair : query.split("&")) {
				int equals = pair.indexOf('=');
				String rawName = (equals < 0) ? pair : pair.substring(0, equals);
				if (rawName.isEmpty()) {
					continue;
				}
				String name = Utf8.percentDecoded(rawName);
				if (name == null) {
					throw new InvalidParameterException(rawName, "must be percent-encoded UTF-8");
				}
				String value = (equals < 0) ? "" : Utf8.percentDecoded(pair.substring(equals + 1));
				if (value == null) {
					throw new InvalidParameterException(name, "must be percent-encoded UTF-8");
				}
				String problem = StorableText.problem(name + value);
				if (problem != null) {
					throw new InvalidParameterException(name, problem);
				}
				if (!seen.add(name)) {
					throw new InvalidParameterException(name, "must be given once");
				}
			}
			return true;
		}

	}

}
