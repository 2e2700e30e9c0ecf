package dev.highload.profiles.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key ring of {@code app.auth.token-keys}: the first key signs new tokens, and every
 * key verifies the tokens whose {@code kid} header names it. Refuses a missing,
 * malformed, short, repeated or published key with a {@link TokenKeyException}; the
 * messages name entries by position and key id, never by their key.
 */
final class TokenKeys {

	private static final Logger log = LoggerFactory.getLogger(TokenKeys.class);

	static final int MIN_KEY_BYTES = 32;

	private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

	private static final Pattern SEPARATORS = Pattern.compile("[,\\s]+");

	/**
	 * SHA-256 of the decoded bytes of every token key ever committed to this project's
	 * repository, with where it was. Anyone who has read the repository can sign tokens
	 * with them, so no deployment may use one.
	 */
	private static final Map<String, String> PUBLISHED = Map.of(
			"1b871a6058b01b394793c5f99a56e796822d643e0d94b57790c555e31eb47e35",
			".env's APP_AUTH_TOKEN_SECRET, the compose deployments' key, from commit 769c096",
			"e9579fefd763bd9970e043d644d3835a295dd0f3c0039a51858833c4e011da8b",
			"src/test/resources/application-test.yml's app.auth.token-secret, from commit 723d213",
			"5b3d1dc4d1ca41a68d5e0f83d3af3d7ca7772c9d5505c77c0947b113ee641c0f",
			"TokenServiceTests' KEY, bytes(32, 1), from commit 41c3706",
			"10568b246f28fd4ff5d17dc34d92117b4e0a317368fd9293efc5fa53de0822e3",
			"TokenServiceTests' OTHER_KEY, bytes(32, 2), from commit 41c3706",
			"f41d644b52b9154a89c63612b5bfcd3ceeb428667c98298498a78ef023c61b80",
			"TokenServiceTests' 64-byte key, bytes(64, 4), from commit 41c3706");

	private final String currentId;

	private final JWSSigner signer;

	private final Map<String, JWSVerifier> verifiers;

	private TokenKeys(Map<String, byte[]> keys) {
		try {
			Map<String, JWSVerifier> verifiers = new LinkedHashMap<>();
			for (Map.Entry<String, byte[]> key : keys.entrySet()) {
				verifiers.put(key.getKey(), new MACVerifier(key.getValue()));
			}
			this.verifiers = verifiers;
			this.currentId = keys.keySet().iterator().next();
			this.signer = new MACSigner(keys.get(this.currentId));
		}
		catch (JOSEException ex) {
			throw new IllegalStateException("The MAC library refused a key of at least 32 bytes", ex);
		}
	}

	/**
	 * @param entries the bound {@code app.auth.token-keys}
	 * @return the key ring
	 * @throws TokenKeyException if the keys cannot be used
	 */
	static TokenKeys of(List<String> entries) {
		TokenKeys ring = new TokenKeys(check(entries));
		log.info("Token keys: signing with '{}', accepting {}", ring.currentId, ring.verifiers.keySet());
		return ring;
	}

	/**
	 * @param entries the bound {@code app.auth.token-keys}
	 * @return the keys by id, the signing key first; never empty
	 * @throws TokenKeyException if the keys cannot be used
	 */
	static Map<String, byte[]> check(List<String> entries) {
		List<String> split = split(entries);
		if (split.isEmpty()) {
			throw new TokenKeyException(
					"app.auth.token-keys is not set: a deployment needs keys of its own, shared by its instances");
		}
		Map<String, byte[]> keys = new LinkedHashMap<>();
		for (int i = 0; i < split.size(); i++) {
			String entry = split.get(i);
			int colon = entry.indexOf(':');
			String id = (colon >= 0) ? entry.substring(0, colon) : "";
			if (colon < 0 || !KEY_ID.matcher(id).matches()) {
				throw new TokenKeyException(("Entry %d of app.auth.token-keys is not <key-id>:<Base64 key> "
						+ "with a key id of 1 to 64 of A-Z a-z 0-9 . _ -")
					.formatted(i + 1));
			}
			byte[] key = decode(id, entry.substring(colon + 1));
			String published = PUBLISHED.get(fingerprint(key));
			if (published != null) {
				throw new TokenKeyException(("The key '%s' of app.auth.token-keys is published in this project's "
						+ "repository (%s): anyone can sign tokens with it")
					.formatted(id, published));
			}
			if (keys.putIfAbsent(id, key) != null) {
				throw new TokenKeyException(
						"Two entries of app.auth.token-keys have the key id '%s': each key needs an id of its own"
							.formatted(id));
			}
		}
		return keys;
	}

	private static List<String> split(List<String> entries) {
		List<String> split = new ArrayList<>();
		if (entries != null) {
			for (String entry : entries) {
				for (String part : SEPARATORS.split((entry != null) ? entry.strip() : "")) {
					if (!part.isEmpty()) {
						split.add(part);
					}
				}
			}
		}
		return split;
	}

	private static byte[] decode(String id, String base64) {
		byte[] key;
		try {
			key = Base64.getDecoder().decode(base64);
		}
		catch (IllegalArgumentException ex) {
			throw new TokenKeyException("The key '%s' of app.auth.token-keys is not Base64".formatted(id));
		}
		if (key.length < MIN_KEY_BYTES) {
			throw new TokenKeyException("The key '%s' of app.auth.token-keys decodes to %d bytes; it needs at least %d"
				.formatted(id, key.length, MIN_KEY_BYTES));
		}
		return key;
	}

	static String fingerprint(byte[] key) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java has SHA-256", ex);
		}
	}

	/** The id of the key that signs new tokens. */
	String currentId() {
		return this.currentId;
	}

	/** Signs with the current key. */
	JWSSigner signer() {
		return this.signer;
	}

	/**
	 * @param keyId a token's {@code kid}, possibly null
	 * @return the verifier of that key, null if no key has that id
	 */
	JWSVerifier verifier(String keyId) {
		return (keyId != null) ? this.verifiers.get(keyId) : null;
	}

}
