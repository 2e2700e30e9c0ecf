package dev.highload.profiles.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an operation that answers a consistency token ({@link ConsistencyTokens}), and,
 * unless it writes, reads at a token the request carries: the OpenAPI document then
 * describes the header for it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ConsistentRead {

	/** Whether the operation writes: it answers a token and reads none. */
	boolean write() default false;

}
