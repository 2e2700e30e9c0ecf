package dev.highload.profiles;

import java.text.ParseException;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an attacker who read this repository's history would try against a deployment: a
 * token for a chosen user, signed with a key that was once committed, under the key id
 * the deployment really uses (any token it issued shows it). Every such token must be
 * refused; the same token signed with the deployment's real key, the control, must be
 * accepted, so that a refusal is shown to come from the key and not from a malformed
 * token.
 */
final class ForgedTokens {

	/**
	 * Every token key that was ever committed to this repository (the committed .env of
	 * the compose deployments and the integration tests' application-test.yml). They are
	 * public: naming them here publishes nothing new.
	 */
	static final List<String> PUBLISHED_KEYS = List.of("7QUfZrfD6uuanZWgUB4+IKf0W252jac17HLLdLdLO9M=",
			"dGVzdC1vbmx5LXRva2VuLXNlY3JldC0zMi1ieXRlcyEh");

	private ForgedTokens() {
	}

	/**
	 * Registers a user, logs in, and checks that tokens for that user signed with each
	 * published key are refused by {@code /user/me} while one signed with the
	 * deployment's current key is accepted.
	 * @param api the deployment's public API
	 * @param keyRing the deployment's {@code app.auth.token-keys} (docker/secrets.sh's
	 * token-keys file): {@code id:key[,id:key...]}, current first
	 */
	static void assertPublishedKeysRefused(ApiClient api, String keyRing) throws Exception {
		UUID id = api.register("Forged", "Token", "secret-password");
		ApiClient.Response login = api.post("/login",
				ApiClient.toJson(Map.of("id", id.toString(), "password", "secret-password")));
		assertThat(login.status()).as(login.body()).isEqualTo(200);
		String issued = login.json().get("token").asString();
		String keyId = SignedJWT.parse(issued).getHeader().getKeyID();
		assertThat(keyId).as("the key id of an issued token").isNotBlank();

		for (String published : PUBLISHED_KEYS) {
			for (String kid : new String[] { keyId, null }) {
				ApiClient.Response me = api.get("/user/me", "Authorization", "Bearer " + sign(id, kid, published));
				assertThat(me.status()).as("a token signed with a published key, kid " + kid).isEqualTo(401);
			}
		}
		String current = keyRing.split(",")[0];
		String currentId = current.substring(0, current.indexOf(':'));
		assertThat(currentId).isEqualTo(keyId);
		ApiClient.Response control = api.get("/user/me", "Authorization",
				"Bearer " + sign(id, currentId, current.substring(current.indexOf(':') + 1)));
		assertThat(control.status()).as("the same token signed with the deployment's own key").isEqualTo(200);
	}

	static String sign(UUID subject, String keyId, String base64Key) throws JOSEException, ParseException {
		Instant now = Instant.now();
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject.toString())
			.issuer("user-profiles")
			.issueTime(Date.from(now))
			.expirationTime(Date.from(now.plusSeconds(3600)))
			.jwtID(UUID.randomUUID().toString())
			.build();
		JWSHeader.Builder header = new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT);
		if (keyId != null) {
			header.keyID(keyId);
		}
		SignedJWT jwt = new SignedJWT(header.build(), claims);
		jwt.sign(new MACSigner(Base64.getDecoder().decode(base64Key)));
		return jwt.serialize();
	}

}
