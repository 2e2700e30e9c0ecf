package dev.highload.profiles.input;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The service's own handlers answer {@code application/json}, and when the client accepts
 * it in one of the usual words (no {@code Accept} header, or exactly {@code *}{@code /*},
 * {@code application/json} or {@code application/*}) the type is set before the handler
 * runs: Spring MVC then writes the body without negotiating, which otherwise asks every
 * message converter what it can write and sorts the media types on every request. Any
 * other {@code Accept} header is negotiated as before (406 when JSON is not acceptable).
 * <p>
 * Problems keep their type: Spring MVC clears the content type before an exception
 * handler answers, and the error controller names {@code application/problem+json} on its
 * answer, which replaces this one. Handlers of other code (Actuator, springdoc) are left
 * alone.
 */
@Configuration(proxyBeanMethods = false)
class JsonAnswers implements WebMvcConfigurer {

	private static final String OWN_PACKAGES = "dev.highload.profiles.";

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(new Preset());
	}

	static final class Preset implements HandlerInterceptor {

		private static final ClassValue<Boolean> OWN = new ClassValue<>() {
			@Override
			protected Boolean computeValue(Class<?> type) {
				return type.getName().startsWith(OWN_PACKAGES);
			}
		};

		@Override
		public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
			if (handler instanceof HandlerMethod method && OWN.get(method.getBeanType())
					&& acceptsJsonPlainly(request.getHeader(HttpHeaders.ACCEPT))) {
				response.setContentType(MediaType.APPLICATION_JSON_VALUE);
			}
			return true;
		}

		static boolean acceptsJsonPlainly(String accept) {
			return accept == null || accept.equals(MediaType.ALL_VALUE)
					|| accept.equals(MediaType.APPLICATION_JSON_VALUE) || accept.equals("application/*");
		}

	}

}
