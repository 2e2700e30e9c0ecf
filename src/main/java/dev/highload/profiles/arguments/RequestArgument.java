package dev.highload.profiles.arguments;

import java.util.function.Function;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Resolves every handler parameter of one type from the servlet request, so that no
 * handler takes the request itself; a feature adds one in its
 * {@code WebMvcConfigurer#addArgumentResolvers}.
 *
 * @param <T> the parameter's type
 */
public final class RequestArgument<T> implements HandlerMethodArgumentResolver {

	private final Class<T> type;

	private final Function<HttpServletRequest, T> from;

	private RequestArgument(Class<T> type, Function<HttpServletRequest, T> from) {
		this.type = type;
		this.from = from;
	}

	/** Parameters of {@code type}, read from the request by {@code from}. */
	public static <T> RequestArgument<T> of(Class<T> type, Function<HttpServletRequest, T> from) {
		return new RequestArgument<>(type, from);
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return parameter.getParameterType() == this.type;
	}

	@Override
	public T resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer, NativeWebRequest webRequest,
			WebDataBinderFactory binderFactory) {
		return this.from.apply(webRequest.getNativeRequest(HttpServletRequest.class));
	}

}
