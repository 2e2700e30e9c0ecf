package dev.highload.profiles.input;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.highload.profiles.problem.Problems;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import org.springframework.beans.TypeMismatchException;
import org.springframework.context.MessageSourceResolvable;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error Spring MVC or the input rules raise, as an RFC 9457 problem detail with the
 * request's id: malformed or invalid input is 400, validation failures list each field
 * with its JSON name. What the features and the database report is answered before this
 * advice is asked, by the failure package. Anything unexpected is a 500 that says nothing
 * about the code; the details go to the log under the request id.
 */
@RestControllerAdvice
class ProblemDetailsAdvice extends ResponseEntityExceptionHandler {

	private static final Logger log = LoggerFactory.getLogger(ProblemDetailsAdvice.class);

	@Override
	protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		Class<?> target = (ex.getTarget() != null) ? ex.getTarget().getClass() : null;
		List<Map<String, String>> errors = new ArrayList<>();
		for (FieldError error : ex.getBindingResult().getFieldErrors()) {
			errors.add(fieldError(jsonName(target, error.getField()), error.getDefaultMessage()));
		}
		ex.getBindingResult()
			.getGlobalErrors()
			.forEach((error) -> errors.add(fieldError(error.getObjectName(), error.getDefaultMessage())));
		return invalid(errors, ex, headers, request);
	}

	@Override
	protected ResponseEntity<Object> handleHandlerMethodValidationException(HandlerMethodValidationException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<Map<String, String>> errors = new ArrayList<>();
		ex.getParameterValidationResults().forEach((result) -> {
			String name = parameterName(result.getMethodParameter());
			result.getResolvableErrors()
				.stream()
				.map(MessageSourceResolvable::getDefaultMessage)
				.forEach((message) -> errors.add(fieldError(name, message)));
		});
		return invalid(errors, ex, headers, request);
	}

	/**
	 * The 405's {@code Allow} names what the path serves, as its OPTIONS answer does:
	 * Spring names only the mapped methods, while every path also serves OPTIONS, and
	 * HEAD where it serves GET.
	 */
	@Override
	protected ResponseEntity<Object> handleHttpRequestMethodNotSupported(HttpRequestMethodNotSupportedException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		Set<HttpMethod> allowed = new LinkedHashSet<>();
		if (ex.getSupportedHttpMethods() != null) {
			allowed.addAll(ex.getSupportedHttpMethods());
		}
		if (allowed.contains(HttpMethod.GET)) {
			allowed.add(HttpMethod.HEAD);
		}
		allowed.add(HttpMethod.OPTIONS);
		HttpHeaders answered = new HttpHeaders();
		answered.addAll(headers);
		answered.setAllow(allowed);
		return super.handleHttpRequestMethodNotSupported(ex, answered, status, request);
	}

	@Override
	protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		String detail = "The request body is missing or is not valid JSON";
		Map<String, String> error = null;
		Throwable cause = ex.getCause();
		if (cause instanceof Utf8RequestBodies.NotUtf8Exception notUtf8) {
			detail = "The request body is not valid UTF-8";
			if (notUtf8.field() != null) {
				error = fieldError(notUtf8.field(), "must be valid UTF-8");
			}
		}
		else if (cause instanceof UnrecognizedPropertyException unknown) {
			detail = "Unknown field '" + unknown.getPropertyName() + "'";
		}
		else if (cause instanceof DatabindException databind && !databind.getPath().isEmpty()) {
			String field = databind.getPath()
				.stream()
				.map((ref) -> (ref.getPropertyName() != null) ? ref.getPropertyName() : "[" + ref.getIndex() + "]")
				.collect(Collectors.joining("."));
			detail = "Invalid value for '" + field + "'";
			error = fieldError(field, (cause instanceof InvalidJsonValueException invalid) ? invalid.reason()
					: "is not a valid value of its type");
		}
		else if (cause instanceof StreamReadException malformed) {
			String field = (malformed.processor() != null) ? malformed.processor().streamReadContext().currentName()
					: null;
			// Jackson's strict duplicate detection (StrictJsonConfiguration) has no
			// exception type of its own; its message starts so.
			if (field != null && malformed.getOriginalMessage().startsWith("Duplicate")) {
				detail = "Duplicate field '" + field + "'";
				error = fieldError(field, "must be given once");
			}
			else {
				detail = "Malformed JSON";
				if (field != null) {
					error = fieldError(field, "is not valid JSON");
				}
			}
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		if (error != null) {
			problem.setProperty("errors", List.of(error));
		}
		return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
	}

	@Override
	protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		String name = (ex instanceof MethodArgumentTypeMismatchException mismatch)
				? parameterName(mismatch.getParameter()) : ex.getPropertyName();
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"Invalid value for '" + name + "'");
		problem.setProperty("errors", List.of(fieldError(name, "must be a valid "
				+ ((ex.getRequiredType() != null) ? ex.getRequiredType().getSimpleName() : "value"))));
		return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
	}

	@ExceptionHandler
	ResponseEntity<Object> handleUnexpected(Exception ex, NativeWebRequest request) {
		if (ExceptionUtils.throwableOfType(ex, InvalidParameterException.class) != null) {
			// Tomcat could not parse the query string (a parameter without a name, bad
			// percent-encoding): the client's request is malformed.
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
					"The query string is malformed");
			return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.BAD_REQUEST, request);
		}
		log.error("Unexpected error", ex);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
				"An unexpected error occurred; quote the request_id when reporting it");
		return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.INTERNAL_SERVER_ERROR, request);
	}

	@Override
	protected ResponseEntity<Object> createResponseEntity(Object body, HttpHeaders headers, HttpStatusCode statusCode,
			WebRequest request) {
		if (body instanceof ProblemDetail problem && request instanceof NativeWebRequest nativeRequest) {
			HttpServletRequest servletRequest = nativeRequest.getNativeRequest(HttpServletRequest.class);
			if (servletRequest != null) {
				Problems.identify(problem, servletRequest);
			}
		}
		return super.createResponseEntity(body, headers, statusCode, request);
	}

	private ResponseEntity<Object> invalid(List<Map<String, String>> errors, Exception ex, HttpHeaders headers,
			WebRequest request) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "Invalid request");
		problem.setProperty("errors", errors);
		return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
	}

	private static Map<String, String> fieldError(String field, String message) {
		return Map.of("field", field, "message", (message != null) ? message : "is invalid");
	}

	private static String parameterName(MethodParameter parameter) {
		RequestParam requestParam = parameter.getParameterAnnotation(RequestParam.class);
		if (requestParam != null && !requestParam.name().isEmpty()) {
			return requestParam.name();
		}
		PathVariable pathVariable = parameter.getParameterAnnotation(PathVariable.class);
		if (pathVariable != null && !pathVariable.name().isEmpty()) {
			return pathVariable.name();
		}
		return (parameter.getParameterName() != null) ? parameter.getParameterName() : "argument";
	}

	/** The JSON name of a record component, which carries {@link JsonProperty}. */
	private static String jsonName(Class<?> type, String property) {
		if (type == null) {
			return property;
		}
		try {
			Field field = type.getDeclaredField(property);
			JsonProperty json = field.getAnnotation(JsonProperty.class);
			return (json != null && !json.value().isEmpty()) ? json.value() : property;
		}
		catch (NoSuchFieldException ex) {
			return property;
		}
	}

}
