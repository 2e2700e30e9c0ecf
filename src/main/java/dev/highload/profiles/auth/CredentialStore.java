package dev.highload.profiles.auth;

import java.util.Optional;
import java.util.UUID;

import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.routing.WalPosition;

/** Where login finds a user's password hash; implemented by the user feature. */
public interface CredentialStore {

	/**
	 * @param userId a user id
	 * @param atLeast the client's consistency token; {@code NONE} without one
	 * @return the stored password hash, if the user exists, with the position the read
	 * saw
	 */
	Positioned<Optional<String>> findPasswordHash(UUID userId, WalPosition atLeast);

}
