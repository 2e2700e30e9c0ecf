package dev.highload.profiles.user;

import java.util.UUID;

import dev.highload.profiles.routing.WalPosition;

/**
 * The exceptions of user, made for the tests of the package that answers them
 * (failure.FailureAnswersTests): only user throws them.
 */
public final class UserFailures {

	private UserFailures() {
	}

	public static UserNotFoundException notFound(UUID id, WalPosition seen) {
		return new UserNotFoundException(id, seen);
	}

	public static IdempotencyKeyException keyInProgress() {
		return IdempotencyKeyException.inProgress();
	}

	public static IdempotencyKeyException keyReused() {
		return IdempotencyKeyException.reused();
	}

	/**
	 * @param key the key as the client meant it, unquoted
	 * @param cause a database failure or a full hashing queue
	 */
	public static UnfinishedRegistrationException unfinished(String key, RuntimeException cause) {
		return new UnfinishedRegistrationException(new IdempotencyKey(key), cause);
	}

}
