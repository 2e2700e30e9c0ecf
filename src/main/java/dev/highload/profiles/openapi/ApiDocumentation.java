package dev.highload.profiles.openapi;

import java.lang.annotation.Annotation;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.highload.profiles.input.CodePointLength;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springdoc.core.customizers.ParameterCustomizer;
import org.springdoc.core.customizers.PropertyCustomizer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the OpenAPI document says beyond what springdoc reads from the controllers: the
 * problem responses of {@link ProblemResponses}, with their media type and headers, the
 * bounds of {@link CodePointLength} and the bearer scheme of {@code /user/me}.
 * Schemathesis checks the running service against this document in CI
 * ({@code .ci/schemathesis.py}).
 */
@Configuration(proxyBeanMethods = false)
class ApiDocumentation {

	private static final String PROBLEM_JSON = "application/problem+json";

	/** Status → (component name, description). */
	private static final Map<Integer, String[]> RESPONSES = Map.of(400,
			new String[] { "BadRequest",
					"Invalid input: a malformed body, id or parameter; "
							+ "errors lists each invalid field or parameter where there are any" },
			401, new String[] { "Unauthorized", "Missing or invalid credentials" }, 404,
			new String[] { "NotFound", "No such user" }, 409,
			new String[] { "Conflict",
					"A request with the same Idempotency-Key is in progress; retry after the seconds in Retry-After" },
			413, new String[] { "ContentTooLarge", "The request body is larger than app.web.max-request-body" }, 415,
			new String[] { "UnsupportedMediaType", "The body is not application/json" }, 422,
			new String[] { "UnprocessableContent",
					"The Idempotency-Key was used for a different request (another body or password); "
							+ "a different request needs a new key" },
			429,
			new String[] { "TooManyRequests",
					"Too many attempts from this client or for this account; "
							+ "retry after the seconds in Retry-After" },
			503,
			new String[] { "ServiceUnavailable",
					"The database or the password-hashing queue cannot take the "
							+ "request now, a query ran past its statement timeout and was cancelled, or a write's "
							+ "outcome is unknown; retry after the seconds in Retry-After (a registration with the "
							+ "Idempotency-Key in idempotency_key)" });

	@Bean
	OpenApiCustomizer problemComponents() {
		return (openApi) -> {
			openApi.info(new Info().title("User profiles")
				.version("1")
				.description("Register, fetch, search and log in. Every error is application/problem+json "
						+ "(RFC 9457) with a request_id; every 5xx also with message and code, as the OTUS Highload "
						+ "Architect API v1.2.0 has them (docs/api.md, OTUS API v1.2.0 compatibility). Input is I-JSON (RFC 7493) and nothing is read in two ways: "
						+ "bodies and query parameters are UTF-8, strings hold no U+0000 and no unpaired surrogate "
						+ "(\\ud800 alone), a JSON key or a query parameter appears once; otherwise 400 naming it."));
			Components components = (openApi.getComponents() != null) ? openApi.getComponents() : new Components();
			openApi.components(components);
			ModelConverters.getInstance(true).readAll(new AnnotatedType(Problem.class)).forEach(components::addSchemas);
			Map<String, ApiResponse> responses = new TreeMap<>();
			RESPONSES.forEach((status, names) -> responses.put(names[0], problemResponse(status, names[1])));
			responses.forEach(components::addResponses);
			components.addSecuritySchemes(ProblemResponses.BEARER_SCHEME,
					new SecurityScheme().type(SecurityScheme.Type.HTTP)
						.scheme("bearer")
						.bearerFormat("JWT")
						.description("A token from POST /login"));
		};
	}

	@Bean
	OperationCustomizer problemResponses() {
		return (operation, handlerMethod) -> {
			ProblemResponses problems = handlerMethod.getMethodAnnotation(ProblemResponses.class);
			if (problems != null) {
				ApiResponses responses = operation.getResponses();
				for (int status : problems.value()) {
					String[] names = RESPONSES.get(status);
					if (names == null) {
						throw new IllegalStateException("No problem response described for " + status);
					}
					responses.addApiResponse(Integer.toString(status),
							new ApiResponse().$ref("#/components/responses/" + names[0]));
				}
			}
			return operation;
		};
	}

	/** A body property's {@link CodePointLength}, as springdoc writes {@code @Size}. */
	@Bean
	PropertyCustomizer codePointLengthProperties() {
		return (property, type) -> {
			if (type.getCtxAnnotations() != null) {
				for (Annotation annotation : type.getCtxAnnotations()) {
					if (annotation instanceof CodePointLength length) {
						lengths(property, length);
					}
				}
			}
			return property;
		};
	}

	/** A query parameter's {@link CodePointLength}. */
	@Bean
	ParameterCustomizer codePointLengthParameters() {
		return (parameter, methodParameter) -> {
			CodePointLength length = methodParameter.getParameterAnnotation(CodePointLength.class);
			if (parameter != null && length != null && parameter.getSchema() != null) {
				lengths(parameter.getSchema(), length);
			}
			return parameter;
		};
	}

	private static void lengths(Schema<?> schema, CodePointLength length) {
		schema.setMinLength(length.min());
		if (length.max() != Integer.MAX_VALUE) {
			schema.setMaxLength(length.max());
		}
	}

	private static ApiResponse problemResponse(int status, String description) {
		Schema<?> problem = new Schema<>().$ref("#/components/schemas/Problem");
		if (status >= 500) {
			// The members every 5xx carries for clients of the OTUS Highload Architect
			// API (Problems.serverErrorMembers), required here so that Schemathesis
			// checks them.
			problem = new Schema<>().allOf(List.of(problem, new Schema<>().required(List.of("message", "code"))));
		}
		ApiResponse response = new ApiResponse().description(description)
			.content(new Content().addMediaType(PROBLEM_JSON, new MediaType().schema(problem)));
		if (status == 409 || status == 429 || status == 503) {
			response.addHeaderObject("Retry-After",
					new Header().required(true)
						.description("Seconds to wait before retrying")
						.schema(new Schema<>().types(Set.of("integer")).minimum(BigDecimal.ONE)));
		}
		if (status == 401) {
			response.addHeaderObject("WWW-Authenticate",
					new Header().required(true).schema(new Schema<>().types(Set.of("string")).pattern("^Bearer")));
		}
		return response;
	}

}
