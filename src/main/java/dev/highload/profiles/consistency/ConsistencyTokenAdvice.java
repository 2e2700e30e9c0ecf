package dev.highload.profiles.consistency;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.highload.profiles.routing.Positioned;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Answers the position a {@link ConsistentRead} handler returned, and writes the value
 * alone as the body: a read's {@link Positioned} gives the position it saw (header, and
 * the cookie when the request carried one that it moves forward), a {@link Written} its
 * commit's (header and cookie; nothing at no position). The headers go to the response
 * before anything of the body, where the handlers used to set them.
 * <p>
 * Asked for every body Spring MVC writes, this advice looks a handler's annotation up
 * once and keeps the answer; any other body passes through untouched.
 */
@ControllerAdvice
class ConsistencyTokenAdvice implements ResponseBodyAdvice<Object> {

	private final ConsistencyTokens tokens;

	/** Per handler method, whether it is a {@link ConsistentRead}. */
	private final Map<Method, Boolean> consistent = new ConcurrentHashMap<>();

	ConsistencyTokenAdvice(ConsistencyTokens tokens) {
		this.tokens = tokens;
	}

	@Override
	public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
		Method method = returnType.getMethod();
		if (method == null) {
			return false;
		}
		Boolean known = this.consistent.get(method);
		if (known == null) {
			known = method.isAnnotationPresent(ConsistentRead.class);
			this.consistent.put(method, known);
		}
		return known;
	}

	@Override
	public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
			Class<? extends HttpMessageConverter<?>> selectedConverterType, ServerHttpRequest request,
			ServerHttpResponse response) {
		if (body instanceof Positioned<?> read) {
			this.tokens.afterRead(servlet(request), servlet(response), read.seen().offset());
			return read.value();
		}
		if (body instanceof Written<?> written) {
			if (written.position().offset() > 0) {
				this.tokens.afterWrite(servlet(request), servlet(response), written.position().offset());
			}
			return written.value();
		}
		return body;
	}

	private static HttpServletRequest servlet(ServerHttpRequest request) {
		return ((ServletServerHttpRequest) request).getServletRequest();
	}

	private static HttpServletResponse servlet(ServerHttpResponse response) {
		return ((ServletServerHttpResponse) response).getServletResponse();
	}

}
