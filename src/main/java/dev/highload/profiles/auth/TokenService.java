package dev.highload.profiles.auth;

import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import org.springframework.stereotype.Component;

/**
 * Bearer tokens: JWTs signed with HMAC-SHA256, carrying the user id as subject and an
 * expiry, and the id of the key that signed them in the {@code kid} header. Only HS256
 * with one of this service's keys ({@link TokenKeys}) and its issuer is accepted;
 * {@code alg: none}, other algorithms, unknown or missing key ids, other keys, tampered
 * and expired tokens are all rejected.
 */
@Component
public class TokenService {

	static final String ISSUER = "user-profiles";

	private static final String BEARER = "Bearer ";

	private final TokenKeys keys;

	private final AuthProperties properties;

	private final Clock clock;

	TokenService(AuthProperties properties, Clock clock) {
		this.properties = properties;
		this.clock = clock;
		this.keys = TokenKeys.of(properties.tokenKeys());
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
		return sign(claims);
	}

	/** Signs with the current key, whatever the claims. */
	String sign(JWTClaimsSet claims) {
		SignedJWT jwt = new SignedJWT(
				new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).keyID(this.keys.currentId()).build(),
				claims);
		try {
			jwt.sign(this.keys.signer());
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
			JWSVerifier verifier = this.keys.verifier(jwt.getHeader().getKeyID());
			if (verifier == null || !JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())
					|| !jwt.verify(verifier)) {
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
