package dev.highload.profiles.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class TokenServiceTests {

	private static final Duration TTL = Duration.ofHours(1);

	private static final String KEY_ID = "current";

	private static final byte[] KEY = randomKey(32);

	private static final byte[] OTHER_KEY = randomKey(32);

	private static final String HS256_HEADER = "{\"alg\":\"HS256\",\"typ\":\"JWT\",\"kid\":\"" + KEY_ID + "\"}";

	private static final UUID USER = UUID.fromString("0190f3c2-7b1e-7a3d-9c4e-1234567890ab");

	private final MutableClock clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));

	private final TokenService tokens = service(entry(KEY_ID, KEY));

	@Test
	void issuedTokenAuthenticatesItsUser() {
		String token = this.tokens.issue(USER);
		assertThat(this.tokens.authenticate("Bearer " + token)).isEqualTo(USER);
	}

	@Test
	void schemeIsCaseInsensitiveAndSpacesAroundTheTokenAreIgnored() {
		String token = this.tokens.issue(USER);
		assertThat(this.tokens.authenticate("bearer " + token)).isEqualTo(USER);
		assertThat(this.tokens.authenticate("BEARER  " + token + " ")).isEqualTo(USER);
	}

	@Test
	void anotherServiceWithTheSameKeyAcceptsTheToken() {
		TokenService other = service(entry(KEY_ID, KEY));
		assertThat(other.authenticate("Bearer " + this.tokens.issue(USER))).isEqualTo(USER);
	}

	@Test
	void tokensForDifferentUsersAreDifferent() {
		UUID someoneElse = UUID.randomUUID();
		String token = this.tokens.issue(someoneElse);
		assertThat(token).isNotEqualTo(this.tokens.issue(USER));
		assertThat(this.tokens.authenticate("Bearer " + token)).isEqualTo(someoneElse);
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", "Bearer", "Basic dXNlcjpwYXNzd29yZA==" })
	void missingOrNonBearerHeaderIsRejected(String header) {
		assertRejected(() -> this.tokens.authenticate(header));
	}

	@ParameterizedTest
	@ValueSource(
			strings = { "Basic %s", "Token %s", "JWT %s", "%s", "Bearer%s", "Bearer:%s", "Bearer\t%s", "Bearer-%s" })
	void validTokenUnderAnotherSchemeIsRejected(String format) {
		String header = String.format(format, this.tokens.issue(USER));
		assertRejected(() -> this.tokens.authenticate(header));
	}

	@ParameterizedTest
	@ValueSource(strings = { "Bearer ", "Bearer    ", "bearer \t " })
	void emptyTokenIsRejected(String header) {
		assertRejected(() -> this.tokens.authenticate(header));
	}

	@Test
	void tokenWithAChangedSubjectIsRejected() throws Exception {
		String token = this.tokens.issue(USER);
		UUID attacker = UUID.randomUUID();
		JWTClaimsSet changed = new JWTClaimsSet.Builder(SignedJWT.parse(token).getJWTClaimsSet())
			.subject(attacker.toString())
			.build();
		String tampered = withPayload(token, changed.toString());
		assertThat(SignedJWT.parse(tampered).getJWTClaimsSet().getSubject()).isEqualTo(attacker.toString());
		assertRejected(() -> this.tokens.authenticate("Bearer " + tampered));
	}

	@Test
	void tokenWithAnExtendedExpiryIsRejected() throws Exception {
		String token = this.tokens.issue(USER);
		this.clock.advance(TTL.plusMinutes(1));
		JWTClaimsSet changed = new JWTClaimsSet.Builder(SignedJWT.parse(token).getJWTClaimsSet())
			.expirationTime(Date.from(this.clock.instant().plus(Duration.ofDays(365))))
			.build();
		String tampered = withPayload(token, changed.toString());
		assertRejected(() -> this.tokens.authenticate("Bearer " + tampered));
	}

	@Test
	void tokenWithAChangedSignatureIsRejected() {
		String token = this.tokens.issue(USER);
		String[] parts = token.split("\\.");
		byte[] signature = Base64.getUrlDecoder().decode(parts[2]);
		signature[0] ^= 0x01;
		String tampered = parts[0] + "." + parts[1] + "." + base64Url(signature);
		assertThat(tampered).isNotEqualTo(token);
		assertRejected(() -> this.tokens.authenticate("Bearer " + tampered));
	}

	@Test
	void tokenWithoutItsSignatureIsRejected() {
		String token = this.tokens.issue(USER);
		String unsigned = token.substring(0, token.lastIndexOf('.') + 1);
		assertRejected(() -> this.tokens.authenticate("Bearer " + unsigned));
	}

	@ParameterizedTest
	@ValueSource(strings = { "{\"alg\":\"none\"}", "{\"alg\":\"none\",\"typ\":\"JWT\"}", "{\"alg\":\"None\"}",
			"{\"alg\":\"NONE\",\"typ\":\"JWT\"}" })
	void unsecuredTokenIsRejected(String header) {
		String payload = this.tokens.issue(USER).split("\\.")[1];
		String unsecured = base64Url(header) + "." + payload + ".";
		assertRejected(() -> this.tokens.authenticate("Bearer " + unsecured));
	}

	@Test
	void tokenMadeHereWithTheRightKeyIsAccepted() throws Exception {
		// the tokens below differ from these only in what the test is about
		assertThat(this.tokens
			.authenticate("Bearer " + nimbusHs256(KEY_ID, KEY, claims(USER.toString(), TokenService.ISSUER))))
			.isEqualTo(USER);
		String handMade = sign(HS256_HEADER, claims(USER.toString(), TokenService.ISSUER), "HmacSHA256", KEY);
		assertThat(this.tokens.authenticate("Bearer " + handMade)).isEqualTo(USER);
	}

	@Test
	void tokenSignedWithAnotherKeyIsRejected() throws Exception {
		String token = nimbusHs256(KEY_ID, OTHER_KEY, claims(USER.toString(), TokenService.ISSUER));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@ValueSource(strings = { "HS384", "HS512" })
	void tokenSignedWithTheRightKeyButAnotherAlgorithmIsRejected(String algorithm) throws Exception {
		String token = sign(HS256_HEADER.replace("HS256", algorithm), claims(USER.toString(), TokenService.ISSUER),
				"HmacSHA" + algorithm.substring(2), KEY);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@ValueSource(strings = { "HS384", "HS512" })
	void tokenSignedWithALongEnoughKeyForAnotherAlgorithmIsRejected(String algorithm) throws Exception {
		// with 32 bytes the MAC library itself refuses HS384 and HS512; 64 are enough for
		// both, so only the service's own algorithm check can reject these
		byte[] key = randomKey(64);
		TokenService service = service(entry(KEY_ID, key));
		JWTClaimsSet claims = claims(USER.toString(), TokenService.ISSUER);
		String hs256 = sign(HS256_HEADER, claims, "HmacSHA256", key);
		assertThat(service.authenticate("Bearer " + hs256)).isEqualTo(USER);
		String token = sign(HS256_HEADER.replace("HS256", algorithm), claims, "HmacSHA" + algorithm.substring(2), key);
		assertRejected(() -> service.authenticate("Bearer " + token));
	}

	@Test
	void tokenIsAcceptedUntilItsExpiry() {
		String token = this.tokens.issue(USER);
		this.clock.advance(TTL.minusSeconds(1));
		assertThat(this.tokens.authenticate("Bearer " + token)).isEqualTo(USER);
	}

	@Test
	void tokenIsRejectedAtItsExpiry() {
		String token = this.tokens.issue(USER);
		this.clock.advance(TTL);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@Test
	void expiredTokenIsRejected() {
		String token = this.tokens.issue(USER);
		this.clock.advance(TTL.plusHours(24));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", "someone-else", "User-Profiles", "user-profiles " })
	void tokenFromAnotherIssuerIsRejected(String issuer) throws Exception {
		String token = nimbusHs256(KEY_ID, KEY, claims(USER.toString(), issuer));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@Test
	void tokenWithoutExpiryIsRejected() throws Exception {
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(USER.toString()).issuer(TokenService.ISSUER).build();
		String token = nimbusHs256(KEY_ID, KEY, claims);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", "not-a-uuid", "42", "0190f3c2-7b1e-7a3d-9c4e-1234567890abc",
			"0190f3c27b1e7a3d9c4e1234567890ab", "{0190f3c2-7b1e-7a3d-9c4e-1234567890ab}" })
	void tokenWhoseSubjectIsNotAUuidIsRejected(String subject) throws Exception {
		String token = nimbusHs256(KEY_ID, KEY, claims(subject, TokenService.ISSUER));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@ValueSource(strings = { "[]", "null", "\"text\"", "{\"sub\":42,\"iss\":\"user-profiles\",\"exp\":4102444800}",
			"{\"sub\":[],\"iss\":\"user-profiles\",\"exp\":4102444800}",
			"{\"sub\":\"0190f3c2-7b1e-7a3d-9c4e-1234567890ab\",\"iss\":\"user-profiles\",\"exp\":\"soon\"}",
			"{\"sub\":\"0190f3c2-7b1e-7a3d-9c4e-1234567890ab\",\"iss\":[\"user-profiles\"],\"exp\":4102444800}",
			"{\"sub\":\"0190f3c2-7b1e-7a3d-9c4e-1234567890ab\"", "not json" })
	void correctlySignedMalformedClaimsAreRejected(String payload) throws Exception {
		String token = sign(HS256_HEADER, payload, "HmacSHA256", KEY);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@ParameterizedTest
	@ValueSource(strings = { "garbage", "a.b.c", "a.b.c.d", "a.b.c.d.e", ".", "..", "...", "eyJhbGciOiJIUzI1NiJ9",
			"eyJhbGciOiJIUzI1NiJ9..", "eyJhbGciOiJIUzI1NiJ9.e30.", "eyJhbGciOiJIUzI1NiJ9.e30.e30", "%%%.%%%.%%%",
			"Ив.ан.ов", "\u0000", "null", "{}" })
	void garbageIsRejected(String token) {
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@Test
	void validTokenWithSomethingAppendedIsRejected() {
		String token = this.tokens.issue(USER);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token + "x"));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token + ".x"));
		assertRejected(() -> this.tokens.authenticate("Bearer " + token + " " + token));
	}

	@Test
	void newTokensNameTheFirstKeyAndAreSignedWithIt() throws Exception {
		byte[] previous = randomKey(32);
		TokenService rotated = service(entry("new", KEY), entry("old", previous));
		String token = rotated.issue(USER);
		assertThat(SignedJWT.parse(token).getHeader().getKeyID()).isEqualTo("new");
		assertThat(service(entry("new", KEY)).authenticate("Bearer " + token)).isEqualTo(USER);
		assertRejected(() -> service(entry("old", previous)).authenticate("Bearer " + token));
	}

	@Test
	void aTokenOfThePreviousKeyIsAcceptedAfterARotation() {
		byte[] previous = randomKey(32);
		String beforeRotation = service(entry("old", previous)).issue(USER);
		TokenService rotated = service(entry("new", KEY), entry("old", previous));
		assertThat(rotated.authenticate("Bearer " + beforeRotation)).isEqualTo(USER);
	}

	@Test
	void aTokenOfAKeyDroppedFromTheRingIsRejected() {
		byte[] previous = randomKey(32);
		String beforeRotation = service(entry("old", previous)).issue(USER);
		TokenService dropped = service(entry("new", KEY));
		assertRejected(() -> dropped.authenticate("Bearer " + beforeRotation));
	}

	@ParameterizedTest
	@ValueSource(strings = { "other", "Current", "current ", "" })
	void tokenNamingAnUnknownKeyIdIsRejectedEvenWithTheRightKey(String keyId) throws Exception {
		String token = nimbusHs256(keyId, KEY, claims(USER.toString(), TokenService.ISSUER));
		assertThat(SignedJWT.parse(token).getHeader().getKeyID()).isEqualTo(keyId);
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
	}

	@Test
	void tokenWithoutAKeyIdIsRejectedEvenWithTheRightKey() throws Exception {
		JWTClaimsSet claims = claims(USER.toString(), TokenService.ISSUER);
		String token = nimbusHs256(null, KEY, claims);
		assertThat(SignedJWT.parse(token).getHeader().getKeyID()).isNull();
		assertRejected(() -> this.tokens.authenticate("Bearer " + token));
		String handMade = sign("{\"alg\":\"HS256\",\"typ\":\"JWT\"}", claims, "HmacSHA256", KEY);
		assertRejected(() -> this.tokens.authenticate("Bearer " + handMade));
	}

	@Test
	void tokenIsVerifiedWithTheKeyItNamesNotWithAnyKeyOfTheRing() throws Exception {
		byte[] previous = randomKey(32);
		TokenService rotated = service(entry("new", KEY), entry("old", previous));
		JWTClaimsSet claims = claims(USER.toString(), TokenService.ISSUER);
		assertThat(rotated.authenticate("Bearer " + nimbusHs256("old", previous, claims))).isEqualTo(USER);
		assertRejected(() -> rotated.authenticate("Bearer " + nimbusHs256("new", previous, claims)));
		assertRejected(() -> rotated.authenticate("Bearer " + nimbusHs256("old", KEY, claims)));
	}

	@Test
	void instancesWithTheSameKeysAcceptEachOthersTokens() {
		TokenService first = new TokenService(properties(entry(KEY_ID, KEY)), this.clock);
		TokenService second = new TokenService(properties(entry(KEY_ID, KEY)), this.clock);
		assertThat(second.authenticate("Bearer " + first.issue(USER))).isEqualTo(USER);
		assertThat(this.tokens.authenticate("Bearer " + first.issue(USER))).isEqualTo(USER);
	}

	@ParameterizedTest
	@NullSource
	@ValueSource(strings = { "", "   ", ",", " , \n" })
	void noKeysRefuseTheStart(String keys) {
		AuthProperties properties = new AuthProperties((keys != null) ? List.of(keys) : null, TTL, 0, 64,
				Duration.ofDays(30));
		assertThatExceptionOfType(TokenKeyException.class).isThrownBy(() -> new TokenService(properties, this.clock))
			.withMessageStartingWith("app.auth.token-keys is not set:")
			.withMessageContaining("head -c 32 /dev/urandom | base64");
		assertThatExceptionOfType(TokenKeyException.class).isThrownBy(
				() -> new TokenService(new AuthProperties(List.of(), TTL, 0, 64, Duration.ofDays(30)), this.clock));
	}

	private static void assertRejected(ThrowingCallable call) {
		assertThatExceptionOfType(AuthenticationFailedException.class).isThrownBy(call)
			.satisfies((ex) -> assertThat(ex.reason()).isIn(AuthenticationFailedException.Reason.MISSING_TOKEN,
					AuthenticationFailedException.Reason.INVALID_TOKEN));
	}

	private JWTClaimsSet claims(String subject, String issuer) {
		return new JWTClaimsSet.Builder().subject(subject)
			.issuer(issuer)
			.issueTime(Date.from(this.clock.instant()))
			.expirationTime(Date.from(this.clock.instant().plus(TTL)))
			.jwtID(UUID.randomUUID().toString())
			.build();
	}

	private static String nimbusHs256(String keyId, byte[] key, JWTClaimsSet claims) throws JOSEException {
		SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(keyId).build(), claims);
		jwt.sign(new MACSigner(key));
		return jwt.serialize();
	}

	/** A JWS made by hand, so that any algorithm can be paired with any key. */
	private static String sign(String header, JWTClaimsSet claims, String macAlgorithm, byte[] key)
			throws GeneralSecurityException {
		return sign(header, claims.toString(), macAlgorithm, key);
	}

	private static String sign(String header, String payload, String macAlgorithm, byte[] key)
			throws GeneralSecurityException {
		String signingInput = base64Url(header) + "." + base64Url(payload);
		Mac mac = Mac.getInstance(macAlgorithm);
		mac.init(new SecretKeySpec(key, macAlgorithm));
		return signingInput + "." + base64Url(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
	}

	/** The token with its payload replaced and its original header and signature. */
	private static String withPayload(String token, String payload) {
		String[] parts = token.split("\\.");
		return parts[0] + "." + base64Url(payload) + "." + parts[2];
	}

	private static String base64Url(String text) {
		return base64Url(text.getBytes(StandardCharsets.UTF_8));
	}

	private static String base64Url(byte[] bytes) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
	}

	static byte[] randomKey(int length) {
		byte[] key = new byte[length];
		new SecureRandom().nextBytes(key);
		return key;
	}

	static String entry(String keyId, byte[] key) {
		return keyId + ":" + Base64.getEncoder().encodeToString(key);
	}

	private TokenService service(String... entries) {
		return new TokenService(properties(entries), this.clock);
	}

	private static AuthProperties properties(String... entries) {
		return new AuthProperties(List.of(entries), TTL, 0, 64, Duration.ofDays(30));
	}

}
