package dev.highload.profiles.auth;

import java.util.Optional;
import java.util.UUID;

/** Where login finds a user's password hash; implemented by the user feature. */
public interface CredentialStore {

	/**
	 * @param userId a user id
	 * @return the stored password hash, if the user exists
	 */
	Optional<String> findPasswordHash(UUID userId);

}
