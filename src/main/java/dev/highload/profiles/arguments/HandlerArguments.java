package dev.highload.profiles.arguments;

import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import org.springdoc.core.utils.SpringDocUtils;

import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * What handlers may take of a request beyond Spring MVC's own bindings, so that none
 * takes the servlet request: the client's address ({@link RemoteAddress}) and the query
 * parameters as sent ({@link SentParameters}). Spring MVC asks each resolver once per
 * handler parameter and caches the answer.
 */
@Configuration(proxyBeanMethods = false)
class HandlerArguments implements WebMvcConfigurer {

	static {
		SpringDocUtils.getConfig()
			.addAnnotationsToIgnore(RemoteAddress.class)
			.addRequestWrapperToIgnore(SentParameters.class);
	}

	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new RemoteAddresses());
		resolvers.add(new Sent());
	}

	static final class RemoteAddresses implements HandlerMethodArgumentResolver {

		@Override
		public boolean supportsParameter(MethodParameter parameter) {
			return parameter.hasParameterAnnotation(RemoteAddress.class)
					&& parameter.getParameterType() == String.class;
		}

		@Override
		public String resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
				NativeWebRequest webRequest, WebDataBinderFactory binderFactory) {
			return webRequest.getNativeRequest(HttpServletRequest.class).getRemoteAddr();
		}

	}

	static final class Sent implements HandlerMethodArgumentResolver {

		@Override
		public boolean supportsParameter(MethodParameter parameter) {
			return parameter.getParameterType() == SentParameters.class;
		}

		@Override
		public SentParameters resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
				NativeWebRequest webRequest, WebDataBinderFactory binderFactory) {
			return new SentParameters(webRequest);
		}

	}

}
