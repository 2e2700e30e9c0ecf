package dev.highload.profiles.auth;

import java.util.List;

import dev.highload.profiles.arguments.RequestArgument;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Gives a handler's {@link LoginClient} parameter from the servlet request, so that the
 * login handler takes none; the device cookie is read as sent ({@link DeviceCookies#of}).
 */
@Configuration(proxyBeanMethods = false)
class LoginClients implements WebMvcConfigurer {

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(RequestArgument.of(LoginClient.class,
				(request) -> new LoginClient(request.getRemoteAddr(), DeviceCookies.of(request), request.isSecure())));
	}

}
