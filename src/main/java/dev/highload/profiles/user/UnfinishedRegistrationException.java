package dev.highload.profiles.user;

/**
 * A registration stopped by a failure that may pass (a database failure, a full hashing
 * queue), with the Idempotency-Key it ran under: a retry with that key and the same body
 * registers the user once, whatever happened to this attempt, and after an unknown
 * outcome only such a retry tells whether the user exists.
 */
public final class UnfinishedRegistrationException extends RuntimeException {

	private final IdempotencyKey key;

	/**
	 * @param key the registration's key
	 * @param cause a {@code database.DatabaseFailureException} or an
	 * {@code auth.HashingOverloadedException}
	 */
	UnfinishedRegistrationException(IdempotencyKey key, RuntimeException cause) {
		super("Registration under " + IdempotencyKey.HEADER + " " + key + " not finished", cause);
		this.key = key;
	}

	/** The key, unquoted: the one the client sent, or the one the server made. */
	public String key() {
		return this.key.value();
	}

	/** The header field a retry sends: the key's header and its value as it is sent. */
	public String keyField() {
		return IdempotencyKey.HEADER + ": " + this.key.headerValue();
	}

}
