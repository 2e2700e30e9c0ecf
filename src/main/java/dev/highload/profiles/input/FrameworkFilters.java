package dev.highload.profiles.input;

import java.nio.charset.StandardCharsets;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.RequestContextFilter;

/**
 * The filters Spring Boot and Tomcat put in front of every request that this service has
 * no use for, taken out: each is work on every request, and every filter of the chain
 * must earn its cost (docs/architecture.md, "The request path").
 * <ul>
 * <li>Spring's {@link RequestContextFilter}: the {@code DispatcherServlet} binds the
 * request and its locale to the thread itself, and no filter of this service reads
 * them.</li>
 * <li>Spring's {@code CharacterEncodingFilter} (off by
 * {@code spring.servlet.encoding.enabled=false}): Tomcat's context gives a request that
 * names no charset UTF-8 instead, with no work per request, so a JSON body is still
 * decoded in the charset its {@code Content-Type} names, UTF-8 when it names none; query
 * strings are decoded as UTF-8 by the connector.</li>
 * <li>Tomcat's {@code WsFilter}: there is no WebSocket endpoint, and pom.xml leaves
 * {@code tomcat-embed-websocket} out.</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class FrameworkFilters {

	/**
	 * A registration of the filter that registers nothing: Spring Boot adds its own
	 * {@code RequestContextFilter} only while no bean registers one.
	 * @return the registration, disabled
	 */
	@Bean
	FilterRegistrationBean<RequestContextFilter> requestContextFilterUnregistered() {
		FilterRegistrationBean<RequestContextFilter> registration = new FilterRegistrationBean<>(
				new RequestContextFilter());
		registration.setEnabled(false);
		return registration;
	}

	@Bean
	WebServerFactoryCustomizer<TomcatServletWebServerFactory> utf8RequestCharacterEncoding() {
		return (factory) -> factory
			.addContextCustomizers((context) -> context.setRequestCharacterEncoding(StandardCharsets.UTF_8.name()));
	}

}
