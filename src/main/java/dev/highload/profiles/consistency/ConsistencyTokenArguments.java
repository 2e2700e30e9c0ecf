package dev.highload.profiles.consistency;

import java.util.List;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Registers {@link AtLeastResolver} with Spring MVC. */
@Configuration(proxyBeanMethods = false)
class ConsistencyTokenArguments implements WebMvcConfigurer {

	private final ConsistencyTokens tokens;

	ConsistencyTokenArguments(ConsistencyTokens tokens) {
		this.tokens = tokens;
	}

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new AtLeastResolver(this.tokens));
	}

}
