package dev.highload.profiles.auth;

/**
 * The password-hashing queue is full: nothing was hashed, and a retry shortly may find
 * room.
 */
public final class HashingOverloadedException extends RuntimeException {

	HashingOverloadedException() {
		super("The password-hashing queue is full");
	}

}
