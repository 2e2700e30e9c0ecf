package dev.highload.profiles.auth;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tokens and password hashing.
 *
 * @param tokenSecret Base64 HMAC key of at least 32 bytes for signing tokens; when empty
 * a random key is made at start-up, and tokens stop working at restart
 * @param tokenTtl how long a token is valid
 * @param hashThreads threads hashing passwords; 0 means one per core
 * @param hashQueue hashing requests that may wait; beyond that the service answers 503
 */
@ConfigurationProperties("app.auth")
public record AuthProperties(@DefaultValue("") String tokenSecret, @DefaultValue("1h") Duration tokenTtl,
		@DefaultValue("0") int hashThreads, @DefaultValue("64") int hashQueue) {

}
