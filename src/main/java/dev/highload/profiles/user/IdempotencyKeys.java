package dev.highload.profiles.user;

import java.util.List;

import dev.highload.profiles.arguments.RequestArgument;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
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
		resolvers.add(RequestArgument.of(IdempotencyKey.class,
				(request) -> IdempotencyKey.of(request.getHeaders(IdempotencyKey.HEADER))));
	}

}
