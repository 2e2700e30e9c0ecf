package dev.highload.profiles.admission;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * The admission filter on the API's requests, third in the chain: after the request id
 * (every answer, a refusal too, carries one) and the request timer (refusals are timed as
 * 503s), before anything that reads the request.
 */
@Configuration(proxyBeanMethods = false)
class AdmissionConfiguration {

	@Bean
	FilterRegistrationBean<AdmissionFilter> admissionFilter(AdmissionControl control) {
		FilterRegistrationBean<AdmissionFilter> registration = new FilterRegistrationBean<>(
				new AdmissionFilter(control));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
		return registration;
	}

}
