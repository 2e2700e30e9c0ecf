package dev.highload.profiles.auth;

import java.util.Optional;

import org.springframework.stereotype.Service;

/**
 * Checks an id and password and issues a token. An unknown id is checked against a dummy
 * hash of the same cost, so it takes as long as a wrong password and gets the same
 * answer.
 */
@Service
class LoginService {

	private final CredentialStore credentials;

	private final PasswordHasher passwordHasher;

	private final TokenService tokens;

	private final String dummyHash;

	LoginService(CredentialStore credentials, PasswordHasher passwordHasher, TokenService tokens) {
		this.credentials = credentials;
		this.passwordHasher = passwordHasher;
		this.tokens = tokens;
		this.dummyHash = passwordHasher.hash(java.util.UUID.randomUUID().toString());
	}

	String login(LoginRequest request) {
		Optional<String> hash = this.credentials.findPasswordHash(request.id());
		boolean matches = this.passwordHasher.matches(request.password(), hash.orElse(this.dummyHash));
		if (hash.isEmpty() || !matches) {
			throw AuthenticationFailedException.badCredentials();
		}
		return this.tokens.issue(request.id());
	}

}
