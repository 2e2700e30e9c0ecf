package dev.highload.profiles.auth;

import java.security.SecureRandom;
import java.text.ParseException;
import java.util.UUID;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

/**
 * Tokens the API does not issue (expired ones, ones signed with another key), made for
 * the integration tests with the running service's own keys: those are made at start-up
 * and never leave its {@link TokenService}.
 */
public final class ServiceTokens {

	private ServiceTokens() {
	}

	/**
	 * @param service the running service's token service
	 * @param claims any claims
	 * @return a token signed with the service's current key, naming its key id
	 */
	public static String sign(TokenService service, JWTClaimsSet claims) {
		return service.sign(claims);
	}

	/**
	 * @param service the running service's token service
	 * @return the id of the key that signs its tokens now
	 */
	public static String currentKeyId(TokenService service) {
		try {
			return SignedJWT.parse(service.issue(UUID.randomUUID())).getHeader().getKeyID();
		}
		catch (ParseException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * @param service the running service's token service
	 * @param claims any claims
	 * @return a token naming the service's current key id, signed with a random key
	 */
	public static String signWithAnotherKey(TokenService service, JWTClaimsSet claims) throws JOSEException {
		byte[] key = new byte[TokenKeys.MIN_KEY_BYTES];
		new SecureRandom().nextBytes(key);
		SignedJWT jwt = new SignedJWT(
				new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).keyID(currentKeyId(service)).build(),
				claims);
		jwt.sign(new MACSigner(key));
		return jwt.serialize();
	}

}
