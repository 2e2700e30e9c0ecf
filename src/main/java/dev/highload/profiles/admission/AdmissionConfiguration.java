package dev.highload.profiles.admission;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * The admission filter on the API's requests, fourth in the chain: after the request id
 * (every answer, a refusal too, carries one), the body read whole (a client that trickles
 * its body holds no place meanwhile) and the request timer (refusals are timed as 503s),
 * before anything that parses the request. Registered, like those, for the dispatch that
 * follows a body as well. And Tomcat's request threads, which time each request's wait
 * for one ({@link RequestThreads}).
 */
@Configuration(proxyBeanMethods = false)
class AdmissionConfiguration {

	@Bean
	FilterRegistrationBean<AdmissionFilter> admissionFilter(AdmissionControl control) {
		FilterRegistrationBean<AdmissionFilter> registration = new FilterRegistrationBean<>(
				new AdmissionFilter(control));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 3);
		registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
		return registration;
	}

	@Bean
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	RequestThreads requestThreads(TomcatServerProperties tomcat, ObjectProvider<MeterRegistry> registry) {
		return new RequestThreads(tomcat, registry.getIfAvailable(SimpleMeterRegistry::new));
	}

}
