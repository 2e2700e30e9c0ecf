package dev.highload.profiles.user;

import java.util.UUID;

import dev.highload.profiles.routing.WalPosition;

/**
 * No user has the requested id on a node that would show it if it existed
 * ({@link UserService}). It carries the position the read saw, which the answer gives the
 * client as every read's does.
 */
public final class UserNotFoundException extends RuntimeException {

	private final UUID id;

	private final WalPosition seen;

	UserNotFoundException(UUID id, WalPosition seen) {
		super("No user with id " + id);
		this.id = id;
		this.seen = seen;
	}

	public UUID id() {
		return this.id;
	}

	/** The position the read saw. */
	public WalPosition seen() {
		return this.seen;
	}

}
