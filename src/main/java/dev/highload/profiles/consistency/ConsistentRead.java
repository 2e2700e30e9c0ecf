package dev.highload.profiles.consistency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a handler that answers a consistency token ({@link ConsistencyTokens}), and,
 * unless it writes, reads at a token the request carries.
 * <ul>
 * <li>A read takes an {@link AtLeast}, the position its request requires, and returns a
 * {@code routing.Positioned} (or a {@code ResponseEntity} of one): the position it saw is
 * answered in the {@value ConsistencyTokens#HEADER} header, and in the cookie when the
 * request carried one that it moves forward.</li>
 * <li>A write returns a {@link Written}: its position is answered in the header and the
 * cookie.</li>
 * </ul>
 * {@link ConsistencyTokenAnswers} writes the answer and the value alone as the body; the
 * OpenAPI document describes the header for each such operation
 * ({@link ConsistencyTokenDocumentation}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ConsistentRead {

	/** Whether the operation writes: it answers a token and reads none. */
	boolean write() default false;

}
