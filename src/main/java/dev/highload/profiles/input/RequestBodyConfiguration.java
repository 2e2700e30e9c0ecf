package dev.highload.profiles.input;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * {@link RequestBodyFilter} second in the chain, after the request id, for the first
 * dispatch and the one that follows a body. A configuration rather than a component: the
 * web test slices run on mock requests, which have no non-blocking reads.
 */
@Configuration(proxyBeanMethods = false)
class RequestBodyConfiguration {

	@Bean
	FilterRegistrationBean<RequestBodyFilter> requestBodyFilter(WebProperties properties,
			ObjectProvider<MeterRegistry> registry) {
		FilterRegistrationBean<RequestBodyFilter> registration = new FilterRegistrationBean<>(
				new RequestBodyFilter(properties, registry.getIfAvailable(SimpleMeterRegistry::new)));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
		registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
		return registration;
	}

}
