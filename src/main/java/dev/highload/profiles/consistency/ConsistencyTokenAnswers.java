package dev.highload.profiles.consistency;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.highload.profiles.routing.Positioned;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpEntity;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Answers the position a {@link ConsistentRead} handler returned, then writes the value
 * alone as the body: a read's {@link Positioned} gives the position it saw (header, and
 * the cookie when the request carried one that it moves forward), a {@link Written} its
 * commit's (header and cookie; nothing at no position). Either may be the body of a
 * {@code ResponseEntity}, whose status and headers are kept.
 * <p>
 * The body is written by Spring MVC's own processors ({@code @ResponseBody} or
 * {@code ResponseEntity}), told the value's type in place of the handler's: for a
 * {@code Positioned<UserProfile>} they see a {@code UserProfile}, a class, whose type
 * they need not resolve against the controller on every answer as they do a generic one.
 * What each handler returns is worked out once.
 */
final class ConsistencyTokenAnswers implements HandlerMethodReturnValueHandler {

	private final ConsistencyTokens tokens;

	/** Spring MVC's own handlers, in their order. */
	private final List<HandlerMethodReturnValueHandler> writers;

	/** Per handler method, how its value is written; empty if it answers no token. */
	private final Map<Method, Optional<Writing>> writings = new ConcurrentHashMap<>();

	ConsistencyTokenAnswers(ConsistencyTokens tokens, List<HandlerMethodReturnValueHandler> writers) {
		this.tokens = tokens;
		this.writers = List.copyOf(writers);
	}

	@Override
	public boolean supportsReturnType(MethodParameter returnType) {
		return writing(returnType).isPresent();
	}

	@Override
	public void handleReturnValue(Object returnValue, MethodParameter returnType, ModelAndViewContainer mavContainer,
			NativeWebRequest webRequest) throws Exception {
		Writing writing = writing(returnType).orElseThrow();
		HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
		HttpServletResponse response = webRequest.getNativeResponse(HttpServletResponse.class);
		Object value = (returnValue instanceof ResponseEntity<?> entity)
				? new ResponseEntity<>(answer(entity.getBody(), request, response), entity.getHeaders(),
						entity.getStatusCode())
				: answer(returnValue, request, response);
		writing.writer().handleReturnValue(value, writing.valueType(), mavContainer, webRequest);
	}

	private Object answer(Object body, HttpServletRequest request, HttpServletResponse response) {
		if (body instanceof Positioned<?> read) {
			this.tokens.afterRead(request, response, read.seen().offset());
			return read.value();
		}
		if (body instanceof Written<?> written) {
			if (written.position().offset() > 0) {
				this.tokens.afterWrite(request, response, written.position().offset());
			}
			return written.value();
		}
		throw new IllegalStateException("A @ConsistentRead handler returned " + body);
	}

	private Optional<Writing> writing(MethodParameter returnType) {
		Method method = returnType.getMethod();
		if (method == null) {
			return Optional.empty();
		}
		Optional<Writing> known = this.writings.get(method);
		if (known == null) {
			known = writingOf(returnType);
			this.writings.put(method, known);
		}
		return known;
	}

	/**
	 * {@code Positioned<T>} or {@code Written<T>} is written as {@code T},
	 * {@code ResponseEntity<Positioned<T>>} as {@code ResponseEntity<T>}, by the handler
	 * Spring MVC would have chosen for what the method declares.
	 */
	private Optional<Writing> writingOf(MethodParameter returnType) {
		if (!returnType.hasMethodAnnotation(ConsistentRead.class)) {
			return Optional.empty();
		}
		ResolvableType declared = ResolvableType.forMethodParameter(returnType);
		boolean entity = HttpEntity.class.isAssignableFrom(declared.toClass());
		ResolvableType carrier = entity ? declared.getGeneric(0) : declared;
		Class<?> carrierClass = carrier.toClass();
		if (carrierClass != Positioned.class && carrierClass != Written.class) {
			return Optional.empty();
		}
		HandlerMethodReturnValueHandler writer = this.writers.stream()
			.filter((candidate) -> candidate.supportsReturnType(returnType))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(
					"Spring MVC cannot write what " + returnType.getMethod() + " returns"));
		ResolvableType value = carrier.getGeneric(0);
		return Optional.of(new Writing(new ValueType(returnType,
				entity ? ResolvableType.forClassWithGenerics(declared.toClass(), value) : value), writer));
	}

	/**
	 * How a handler's value is written.
	 *
	 * @param valueType the type it is written as
	 * @param writer the Spring MVC handler that writes it
	 */
	private record Writing(MethodParameter valueType, HandlerMethodReturnValueHandler writer) {

	}

	/** A handler's return type, read as the type of the value it carries. */
	private static final class ValueType extends MethodParameter {

		private final Class<?> type;

		private final Type genericType;

		ValueType(MethodParameter returnType, ResolvableType value) {
			super(returnType);
			this.type = value.toClass();
			this.genericType = value.getType();
		}

		private ValueType(ValueType original) {
			super(original);
			this.type = original.type;
			this.genericType = original.genericType;
		}

		@Override
		public Class<?> getParameterType() {
			return this.type;
		}

		@Override
		public Type getGenericParameterType() {
			return this.genericType;
		}

		@Override
		public ValueType clone() {
			return new ValueType(this);
		}

	}

}
