package dev.highload.profiles.auth;

import java.security.SecureRandom;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.UUID;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Bearer tokens: JWTs signed with HMAC-SHA256, carrying the user id as subject and an
 * expiry. Only HS256 with this service's key and issuer is accepted; {@code alg: none},
 * other algorithms, other keys, tampered and expired tokens are all rejected.
 */
@Component
public class TokenService {

	private static final Logger log = LoggerFactory.getLogger(TokenService.class);

	static final String ISSUER = "user-profiles";

	private static final String BEARER = "Bearer ";

	private final JWSSigner signer;

	private final JWSVerifier verifier;

	private final AuthProperties properties;

	private final Clock clock;

	TokenService(AuthProperties properties, Clock clock) {
		this.properties = properties;
		this.clock = clock;
		byte[] key = key(properties.tokenSecret());
		try {
			this.signer = new MACSigner(key);
			this.verifier = new MACVerifier(key);
		}
		catch (JOSEException ex) {
			throw new IllegalStateException("app.auth.token-secret must be at least 32 bytes (Base64)", ex);
		}
	}

	private static byte[] key(String secret) {
		if (secret == null || secret.isBlank()) {
			log.warn("app.auth.token-secret is not set: using a random key, so tokens stop working at restart");
			byte[] key = new byte[32];
			new SecureRandom().nextBytes(key);
			return key;
		}
		byte[] key;
		try {
			key = Base64.getDecoder().decode(secret.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("app.auth.token-secret must be Base64", ex);
		}
		if (key.length < 32) {
			throw new IllegalStateException("app.auth.token-secret must decode to at least 32 bytes");
		}
		return key;
	}

	/**
	 * @param userId whom the token is for
	 * @return a signed token valid for {@code app.auth.token-ttl}
	 */
	public String issue(UUID userId) {
		Instant now = this.clock.instant();
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(userId.toString())
			.issuer(ISSUER)
			.issueTime(Date.from(now))
			.expirationTime(Date.from(now.plus(this.properties.tokenTtl())))
			.jwtID(UUID.randomUUID().toString())
			.build();
		SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(),
				claims);
		try {
			jwt.sign(this.signer);
		}
		catch (JOSEException ex) {
			throw new IllegalStateException("Could not sign a token", ex);
		}
		return jwt.serialize();
	}

	/**
	 * @param authorization the Authorization header, possibly null
	 * @return the id of the user the valid bearer token was issued to
	 * @throws AuthenticationFailedException if the header is missing or the token invalid
	 */
	public UUID authenticate(String authorization) {
		if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
			throw AuthenticationFailedException.missingToken();
		}
		return verify(authorization.substring(BEARER.length()).trim());
	}

	UUID verify(String token) {
		try {
			SignedJWT jwt = SignedJWT.parse(token);
			if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(this.verifier)) {
				throw AuthenticationFailedException.invalidToken();
			}
			JWTClaimsSet claims = jwt.getJWTClaimsSet();
			Date expiry = claims.getExpirationTime();
			if (!ISSUER.equals(claims.getIssuer()) || expiry == null
					|| !expiry.toInstant().isAfter(this.clock.instant()) || claims.getSubject() == null) {
				throw AuthenticationFailedException.invalidToken();
			}
			return UUID.fromString(claims.getSubject());
		}
		catch (ParseException | JOSEException | IllegalArgumentException ex) {
			throw AuthenticationFailedException.invalidToken();
		}
	}

}
