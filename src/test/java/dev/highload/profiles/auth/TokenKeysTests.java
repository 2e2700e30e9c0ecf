package dev.highload.profiles.auth;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static dev.highload.profiles.auth.TokenServiceTests.entry;
import static dev.highload.profiles.auth.TokenServiceTests.randomKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The keys {@code app.auth.token-keys} may hold: a service refuses to start with a
 * malformed, short, repeated or published key, whether or not the embedded cluster runs,
 * and says what is wrong without printing the key.
 */
class TokenKeysTests {

	private static final String GOOD = entry("good", randomKey(32));

	@Test
	void keysOf32BytesAndMoreWithIdsOfTheAllowedCharactersAreAccepted() {
		TokenKeys keys = TokenKeys.of(List.of("k-1.A_z:" + base64(randomKey(32)) + ", " + entry("k2", randomKey(33)),
				entry("x".repeat(64), randomKey(64))));
		assertThat(keys.currentId()).isEqualTo("k-1.A_z");
		assertThat(keys.verifier("k2")).isNotNull();
		assertThat(keys.verifier("x".repeat(64))).isNotNull();
		assertThat(keys.verifier("k3")).isNull();
		assertThat(keys.verifier(null)).isNull();
	}

	@Test
	void entriesMaySitOneALineAsInASecretFile() {
		TokenKeys keys = TokenKeys.of(List.of(entry("new", randomKey(32)) + "\n" + entry("old", randomKey(32)) + "\n"));
		assertThat(keys.currentId()).isEqualTo("new");
		assertThat(keys.verifier("old")).isNotNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "%s", ":%s", "b@d:%s", "ключ:%s", "k1=%s" })
	void anEntryWithoutAUsableKeyIdRefusesTheStart(String format) {
		String key = base64(randomKey(32));
		assertRefused(List.of(GOOD, String.format(format, key)), key)
			.startsWith("Entry 2 of app.auth.token-keys is not <key-id>:<Base64 key>");
	}

	@Test
	void aKeyIdLongerThan64RefusesTheStart() {
		assertRefused(List.of(entry("x".repeat(65), randomKey(32))), "x".repeat(65))
			.startsWith("Entry 1 of app.auth.token-keys is not <key-id>:<Base64 key>");
	}

	@Test
	void aKeyThatIsNotBase64RefusesTheStart() {
		String urlSafe = Base64.getUrlEncoder().encodeToString(withUrlSafeCharacters());
		for (String key : List.of("not*base64!", "a", "abcde", urlSafe)) {
			assertRefused(List.of(GOOD, "k2:" + key), (key.length() > 8) ? key : null)
				.startsWith("The key 'k2' of app.auth.token-keys is not Base64");
		}
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 16, 31 })
	void aKeyShorterThan32BytesRefusesTheStart(int length) {
		String key = base64(randomKey(length));
		assertRefused(List.of(GOOD, "short:" + key), key)
			.startsWith("The key 'short' of app.auth.token-keys decodes to " + length + " bytes; it needs at least 32");
	}

	@Test
	void anEmptyKeyRefusesTheStart() {
		assertRefused(List.of("empty:"), null).startsWith("The key 'empty' of app.auth.token-keys decodes to 0 bytes");
	}

	@Test
	void twoEntriesWithOneKeyIdRefuseTheStart() {
		assertRefused(List.of(entry("k1", randomKey(32)), entry("k2", randomKey(32)), entry("k1", randomKey(32))), null)
			.startsWith("Two entries of app.auth.token-keys have the key id 'k1'");
	}

	/**
	 * Every token key ever committed to this repository. Published there, so listed here:
	 * no deployment can use them any more.
	 */
	static Stream<Arguments> publishedKeys() {
		return Stream.of(Arguments.of(".env", "7QUfZrfD6uuanZWgUB4+IKf0W252jac17HLLdLdLO9M="),
				Arguments.of("src/test/resources/application-test.yml", "dGVzdC1vbmx5LXRva2VuLXNlY3JldC0zMi1ieXRlcyEh"),
				Arguments.of("TokenServiceTests' KEY", base64(formerTestKey(32, 1))),
				Arguments.of("TokenServiceTests' OTHER_KEY", base64(formerTestKey(32, 2))),
				Arguments.of("TokenServiceTests' 64-byte key", base64(formerTestKey(64, 4))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("publishedKeys")
	void aPublishedKeyRefusesTheStartWhereverItStandsInTheRing(String origin, String key) {
		for (List<String> entries : List.of(List.of("leaked:" + key), List.of(GOOD, "leaked:" + key))) {
			assertThatExceptionOfType(TokenKeyException.class).isThrownBy(() -> TokenKeys.of(entries))
				.withMessageStartingWith("The key 'leaked' of app.auth.token-keys is published in this project's "
						+ "repository (" + origin)
				.withMessageNotContaining(key);
		}
	}

	@Test
	void aPublishedKeyIsRecognisedWithOrWithoutPadding() {
		assertRefused(List.of("leaked:7QUfZrfD6uuanZWgUB4+IKf0W252jac17HLLdLdLO9M"), null)
			.contains("is published in this project's repository (.env");
	}

	@Test
	void aMalformedEntryRefusesTheStart() {
		AuthProperties properties = new AuthProperties(List.of(entry("short", randomKey(16))), Duration.ofHours(1), 0,
				64, Duration.ofDays(30));
		assertThatExceptionOfType(TokenKeyException.class)
			.isThrownBy(() -> new TokenService(properties, Clock.systemUTC()));
	}

	@Test
	void theFailureReportSaysWhatIsWrongAndHowToMakeAKey() {
		TokenKeyException refusal = refusal(List.of());
		FailureAnalysis analysis = new TokenKeyFailureAnalyzer()
			.analyze(new BeanCreationException("tokenService", "Failed to instantiate", refusal));
		assertThat(analysis.getDescription())
			.isEqualTo("app.auth.token-keys is not set: a deployment needs keys of its own, shared by its instances");
		assertThat(analysis.getAction()).contains("app.auth.token-keys", "APP_AUTH_TOKEN_KEYS",
				"/run/secrets/app.auth.token-keys", "<key-id>:<Base64 key>", "head -c 32 /dev/urandom | base64",
				"docker/secrets.sh");
	}

	@Test
	void aKeyMadeAsTheMessageSaysIsAccepted() throws Exception {
		Process process = new ProcessBuilder("sh", "-c", "head -c 32 /dev/urandom | base64").start();
		String key = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
		assertThat(process.waitFor()).isZero();
		TokenService service = new TokenService(
				new AuthProperties(List.of("k1:" + key), Duration.ofHours(1), 0, 64, Duration.ofDays(30)),
				Clock.systemUTC());
		UUID user = UUID.randomUUID();
		assertThat(service.authenticate("Bearer " + service.issue(user))).isEqualTo(user);
	}

	/** Asserts the message leaves out the key, if given, and says how to make one. */
	private static AbstractStringAssert<?> assertRefused(List<String> entries, String key) {
		TokenKeyException refusal = refusal(entries);
		if (key != null) {
			assertThat(refusal.getMessage()).as("the message leaves the key out").doesNotContain(key);
		}
		assertThat(refusal.getMessage()).contains("head -c 32 /dev/urandom | base64");
		return assertThat(refusal.getMessage());
	}

	private static TokenKeyException refusal(List<String> entries) {
		try {
			TokenKeys.of(entries);
		}
		catch (TokenKeyException ex) {
			return ex;
		}
		throw new AssertionError("The keys were accepted");
	}

	private static String base64(byte[] key) {
		return Base64.getEncoder().encodeToString(key);
	}

	/** 32 bytes whose URL-safe Base64 has both '-' and '_'. */
	private static byte[] withUrlSafeCharacters() {
		byte[] key = new byte[32];
		key[0] = (byte) 0xfb;
		key[1] = (byte) 0xff;
		return key;
	}

	/** How TokenServiceTests made its keys until they became random. */
	private static byte[] formerTestKey(int length, int seed) {
		byte[] bytes = new byte[length];
		for (int i = 0; i < length; i++) {
			bytes[i] = (byte) (seed * 31 + i * 7);
		}
		return bytes;
	}

}
