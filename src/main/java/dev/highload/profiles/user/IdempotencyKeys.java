package dev.highload.profiles.user;

import java.util.List;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Gives a handler's {@link IdempotencyKey} parameter from every
 * {@value IdempotencyKey#HEADER} field of the request ({@link IdempotencyKey#of}): a
 * malformed or repeated one is 400 when Spring MVC binds it, after the body.
 * {@code @RequestHeader} would not do: it splits a single field's value at its commas.
 */
@Configuration(proxyBeanMethods = false)
class IdempotencyKeys implements WebMvcConfigurer {

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new Resolver());
	}

	static final class Resolver implements HandlerMethodArgumentResolver {

		@Override
		public boolean supportsParameter(MethodParameter parameter) {
			return parameter.getParameterType() == IdempotencyKey.class;
		}

		@Override
		public IdempotencyKey resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
				NativeWebRequest webRequest, WebDataBinderFactory binderFactory) {
			return IdempotencyKey
				.of(webRequest.getNativeRequest(HttpServletRequest.class).getHeaders(IdempotencyKey.HEADER));
		}

	}

}
