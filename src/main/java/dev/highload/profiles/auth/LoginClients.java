package dev.highload.profiles.auth;

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
 * Gives a handler's {@link LoginClient} parameter from the servlet request, so that the
 * login handler takes none; the device cookie is read as sent ({@link DeviceCookies#of}).
 */
@Configuration(proxyBeanMethods = false)
class LoginClients implements WebMvcConfigurer {

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new Resolver());
	}

	static final class Resolver implements HandlerMethodArgumentResolver {

		@Override
		public boolean supportsParameter(MethodParameter parameter) {
			return parameter.getParameterType() == LoginClient.class;
		}

		@Override
		public LoginClient resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
				NativeWebRequest webRequest, WebDataBinderFactory binderFactory) {
			HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
			return new LoginClient(request.getRemoteAddr(), DeviceCookies.of(request), request.isSecure());
		}

	}

}
