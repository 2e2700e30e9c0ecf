package dev.highload.profiles.consistency;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Gives a handler's {@link AtLeast} parameter. Spring MVC asks {@link #supportsParameter}
 * once per handler parameter and caches the answer; a request with neither the header nor
 * a cookie (most reads) gets a shared value, with nothing made.
 */
final class AtLeastResolver implements HandlerMethodArgumentResolver {

	private final ConsistencyTokens tokens;

	AtLeastResolver(ConsistencyTokens tokens) {
		this.tokens = tokens;
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return parameter.getParameterType() == AtLeast.class;
	}

	@Override
	public AtLeast resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
			NativeWebRequest webRequest, WebDataBinderFactory binderFactory) {
		HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
		if (request.getHeader(ConsistencyTokens.HEADER) == null && request.getHeader(HttpHeaders.COOKIE) == null) {
			return AtLeast.NONE;
		}
		return new AtLeast(this.tokens, request, webRequest.getNativeResponse(HttpServletResponse.class));
	}

}
