package dev.highload.profiles.openapi;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The shape of every error body, for the OpenAPI document only: the responses themselves
 * are Spring's {@code ProblemDetail} with the properties {@code request_id}, for invalid
 * input {@code errors}, on a 503 to a registration {@code idempotency_key}, and on every
 * 5xx {@code message} and {@code code}, the members of the OTUS Highload Architect API's
 * 5xx answer ({@code problem.Problems.serverErrorMembers}).
 *
 * @param type a URI for the kind of problem; {@code about:blank} for all of ours
 * @param title the status's short name or a short description of the kind of problem
 * @param status the HTTP status
 * @param detail what went wrong this time
 * @param instance the path of the request; missing only when the server refused the
 * request before reading it
 * @param requestId the request's id, also in the {@code X-Request-Id} header
 * @param errors for invalid input: one entry per invalid field or parameter
 * @param idempotencyKey on a 503 to a registration: the Idempotency-Key to retry it with
 * @param message on a 5xx: the detail (or the title), for clients of the OTUS API
 * @param code on a 5xx: the HTTP status, for clients of the OTUS API
 */
@Schema(name = "Problem", description = "An RFC 9457 problem detail")
record Problem(@JsonProperty("type") @Schema(format = "uri", defaultValue = "about:blank") String type,
		@JsonProperty("title") @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String title,
		@JsonProperty("status") @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "400",
				maximum = "599") int status,
		@JsonProperty("detail") String detail,
		@JsonProperty("instance") @Schema(format = "uri-reference") String instance,
		@JsonProperty("request_id") @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String requestId,
		@JsonProperty("errors") List<FieldProblem> errors,
		@JsonProperty("idempotency_key") @Schema(minLength = 1, maxLength = 255) String idempotencyKey,
		@JsonProperty("message") @Schema(
				description = "On every 5xx: the detail, or the title when there is none (the OTUS Highload Architect "
						+ "API's 5xx member)") String message,
		@JsonProperty("code") @Schema(
				description = "On every 5xx: the HTTP status (the OTUS Highload Architect API's " + "5xx member)",
				minimum = "500", maximum = "599") Integer code) {

	/**
	 * @param field the JSON field or query parameter
	 * @param message what is wrong with it
	 */
	@Schema(name = "FieldProblem")
	record FieldProblem(@JsonProperty("field") @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String field,
			@JsonProperty("message") @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String message) {

	}

}
