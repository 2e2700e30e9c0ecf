package dev.highload.profiles.auth;

/**
 * The token keys cannot be used, so the service does not start. The first line of the
 * message says what is wrong, the rest how to make and set keys.
 */
class TokenKeyException extends IllegalStateException {

	static final String HOW_TO_SET_KEYS = """
			Set app.auth.token-keys (the variable APP_AUTH_TOKEN_KEYS, or the file /run/secrets/app.auth.token-keys) to <key-id>:<Base64 key> entries separated by commas, the signing key first.
			Make a key of 32 random bytes with: head -c 32 /dev/urandom | base64
			  for example APP_AUTH_TOKEN_KEYS="k1:$(head -c 32 /dev/urandom | base64)"
			docker/secrets.sh makes the keys of the compose deployments.
			Only the local run (./mvnw spring-boot:run) starts without keys, with a throw-away one.""";

	TokenKeyException(String problem) {
		super(problem + "\n" + HOW_TO_SET_KEYS);
	}

}
