package dev.highload.profiles.admission;

import jakarta.servlet.DispatcherType;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * The admission filter on the API's requests, fourth in the chain: after the request id
 * (every answer, a refusal too, carries one), the body read whole (a client that trickles
 * its body holds no place meanwhile) and the request timer (refusals are timed as 503s),
 * before anything that parses the request. Registered, like those, for the dispatch that
 * follows a body as well.
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

}
