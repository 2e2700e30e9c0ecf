package dev.highload.profiles.arguments;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a handler's {@code String} parameter to the address the connection comes from
 * ({@code getRemoteAddr()}, which only Tomcat's {@code RemoteIpValve} may replace), never
 * to anything the client writes. Left out of the OpenAPI document.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RemoteAddress {

}
