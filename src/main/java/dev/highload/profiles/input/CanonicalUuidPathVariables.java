package dev.highload.profiles.input;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.MethodParameter;
import org.springframework.web.bind.MissingPathVariableException;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Binds a {@code @PathVariable UUID} straight from the matched path, in the canonical
 * form only ({@link CanonicalUuid}), ahead of Spring MVC's own path variable resolver
 * ({@link StrictParameterBinding} puts it first). Spring's would make a data binder for
 * the one value, register the strict editors in it, and convert through a type
 * descriptor: on a point read, more CPU than the rest of the handler's arguments together
 * (docs/reports/controls.md, "Profiles of a GET"). What a client sees is the same: a
 * malformed id is the {@link MethodArgumentTypeMismatchException} the binder threw,
 * answered 400 by {@link ProblemDetailsAdvice}.
 */
final class CanonicalUuidPathVariables implements HandlerMethodArgumentResolver {

	/** Per parameter, the variable's name: read from its annotation once. */
	private final Map<MethodParameter, String> names = new ConcurrentHashMap<>();

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return parameter.getParameterType() == UUID.class && parameter.hasParameterAnnotation(PathVariable.class);
	}

	@Override
	public UUID resolveArgument(MethodParameter parameter, ModelAndViewContainer mavContainer,
			NativeWebRequest webRequest, WebDataBinderFactory binderFactory) throws MissingPathVariableException {
		String name = this.names.computeIfAbsent(parameter, CanonicalUuidPathVariables::name);
		@SuppressWarnings("unchecked")
		Map<String, String> variables = (Map<String, String>) webRequest
			.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
		String value = (variables != null) ? variables.get(name) : null;
		if (value == null) {
			throw new MissingPathVariableException(name, parameter);
		}
		if (!CanonicalUuid.matches(value)) {
			throw new MethodArgumentTypeMismatchException(value, UUID.class, name, parameter,
					new IllegalArgumentException("Not a UUID in canonical form"));
		}
		return UUID.fromString(value);
	}

	private static String name(MethodParameter parameter) {
		PathVariable variable = parameter.getParameterAnnotation(PathVariable.class);
		String name = (variable == null) ? "" : !variable.value().isEmpty() ? variable.value() : variable.name();
		if (name.isEmpty()) {
			name = parameter.getParameterName();
		}
		if (name == null) {
			throw new IllegalStateException(
					"The name of path variable " + parameter + " is neither given nor known: compile with -parameters");
		}
		return name;
	}

}
