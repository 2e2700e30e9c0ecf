package dev.highload.profiles.auth;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Tokens and password hashing.
 *
 * @param tokenKeys the HMAC keys that sign tokens, as {@code <key-id>:<Base64 key>}
 * entries separated by commas (or whitespace, e.g. one a line in a secret file); each key
 * at least 32 random bytes ({@code head -c 32 /dev/urandom | base64}), each key id 1 to
 * 64 of {@code A-Z a-z 0-9 . _ -}. The first entry signs new tokens; every entry verifies
 * the tokens that name its key id, so a rotation prepends the new key and drops the old
 * one after {@link #tokenTtl}. Keys ever published in this project's repository are
 * refused; none at all refuses the start (the local run, {@code ./mvnw spring-boot:run},
 * gives itself a throw-away key). Checked by {@link TokenKeys} rather than here, so that
 * no binding error prints a key
 * @param tokenTtl how long a token is valid
 * @param hashThreads passwords hashed at once, registrations and logins together, taking
 * turns; each kind has as many threads, so that either alone may use them all
 * (auth/PasswordHasher); 0 means one per core
 * @param hashQueue requests that may wait on a hash at once, queued or hashing, for
 * registrations and for logins each; beyond that the service answers 503 at once. Each
 * holds a request thread while it waits, so the default, 4 of each kind, leaves at least
 * half of Tomcat's 16 request threads to the reads however many of both kinds come
 * @param deviceCookieTtl how long the device cookie a login gives keeps that client's own
 * way in to the account ({@link DeviceCookies}); each successful login gives a new one
 */
@ConfigurationProperties("app.auth")
public record AuthProperties(@DefaultValue List<String> tokenKeys, @DefaultValue("1h") Duration tokenTtl,
		@DefaultValue("0") int hashThreads, @DefaultValue("4") int hashQueue,
		@DefaultValue("30d") Duration deviceCookieTtl) {

}
