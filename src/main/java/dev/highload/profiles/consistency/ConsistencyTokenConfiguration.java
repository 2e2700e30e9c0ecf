package dev.highload.profiles.consistency;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Registers with Spring MVC the two ends of a token's trip: {@link AtLeastResolver},
 * which reads it, and {@link ConsistencyTokenAnswers}, which answers it.
 */
@Configuration(proxyBeanMethods = false)
class ConsistencyTokenConfiguration implements WebMvcConfigurer {

	private final ConsistencyTokens tokens;

	ConsistencyTokenConfiguration(ConsistencyTokens tokens) {
		this.tokens = tokens;
	}

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new AtLeastResolver(this.tokens));
	}

	/**
	 * Puts {@link ConsistencyTokenAnswers} before Spring MVC's own return value handlers,
	 * which {@code WebMvcConfigurer#addReturnValueHandlers} cannot: those come first, and
	 * the body processor would take every handler of a {@code @RestController}. It writes
	 * through them.
	 * @param tokens the tokens, looked up when the adapter is ready (a post-processor's
	 * own dependencies would be made before every other post-processor)
	 * @return the post-processor
	 */
	@Bean
	static BeanPostProcessor consistencyTokenAnswersFirst(ObjectProvider<ConsistencyTokens> tokens) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getReturnValueHandlers() != null) {
					List<HandlerMethodReturnValueHandler> handlers = new ArrayList<>();
					handlers.add(new ConsistencyTokenAnswers(tokens.getObject(), adapter.getReturnValueHandlers()));
					handlers.addAll(adapter.getReturnValueHandlers());
					adapter.setReturnValueHandlers(handlers);
				}
				return bean;
			}

		};
	}

}
