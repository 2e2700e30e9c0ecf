package dev.highload.profiles.user;

/**
 * A registration refused because of what its Idempotency-Key already stands for
 * (draft-ietf-httpapi-idempotency-key-header-07, section 2.7): nothing was written.
 */
public final class IdempotencyKeyException extends RuntimeException {

	private final boolean inProgress;

	private IdempotencyKeyException(String message, boolean inProgress) {
		super(message);
		this.inProgress = inProgress;
	}

	/**
	 * Another request with the key is being processed; once it has finished, a retry gets
	 * its answer.
	 */
	static IdempotencyKeyException inProgress() {
		return new IdempotencyKeyException("A request with this Idempotency-Key is in progress", true);
	}

	/**
	 * The key was used by a registration with another body or password. Retrying cannot
	 * help; a different registration needs a new key.
	 */
	static IdempotencyKeyException reused() {
		return new IdempotencyKeyException("Idempotency-Key reused with a different request", false);
	}

	/**
	 * @return whether another request holds the key ({@link #inProgress()}), rather than
	 * the key having been used for another registration ({@link #reused()})
	 */
	public boolean isInProgress() {
		return this.inProgress;
	}

}
