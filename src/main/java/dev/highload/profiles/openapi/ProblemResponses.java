package dev.highload.profiles.openapi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The error statuses an endpoint really answers, each documented in the OpenAPI document
 * as an {@code application/problem+json} response (with Retry-After on 429 and 503,
 * WWW-Authenticate on 401) by {@link ApiDocumentation}.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface ProblemResponses {

	/**
	 * The name of the bearer-token security scheme, for
	 * {@code @SecurityRequirement(name = ...)}.
	 */
	String BEARER_SCHEME = "bearer";

	/** HTTP statuses, each one of those {@link ApiDocumentation} describes. */
	int[] value();

}
