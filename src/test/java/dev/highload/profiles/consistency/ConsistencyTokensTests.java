package dev.highload.profiles.consistency;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.highload.profiles.input.InvalidParameterException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import jakarta.servlet.http.Cookie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ConsistencyTokensTests {

	private static final byte[] KEY = key(7);

	private final ConsistencyTokens tokens = new ConsistencyTokens(Map.of("k1", KEY));

	@Test
	void aTokenIsTheOffsetInSixteenHexDigitsTheKeyIdAndAMacAndReadsBackAsTheSameOffset() {
		String token = this.tokens.token(0x1_6B37_48D8L);
		assertThat(token).matches(ConsistencyTokens.PATTERN).startsWith("000000016b3748d8.k1.");
		assertThat(this.tokens.offset(token)).isEqualTo(0x1_6B37_48D8L);
		assertThat(this.tokens.token(0)).startsWith("0000000000000000.k1.");
		assertThat(this.tokens.offset(this.tokens.token(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
		assertThat(new ConsistencyTokens(Map.of("k1", KEY)).offset(token)).as("another instance with the same key")
			.isEqualTo(0x1_6B37_48D8L);
	}

	@Test
	void aTokenWithAnotherPositionOrMacIsRefused() {
		String token = this.tokens.token(0x1_6B37_48D8L);
		String mac = token.substring(token.lastIndexOf('.') + 1);
		assertThatIllegalArgumentException().as("the position moved")
			.isThrownBy(() -> this.tokens.offset("7fffffffffffffff.k1." + mac));
		char last = mac.charAt(mac.length() - 1);
		String tampered = token.substring(0, token.length() - 1) + ((last == 'A') ? 'B' : 'A');
		assertThatIllegalArgumentException().as("the MAC changed").isThrownBy(() -> this.tokens.offset(tampered));
	}

	@Test
	void aTokenOfAnotherKeyIsRefusedAndOneOfAnOlderKeyOfTheRingIsRead() {
		ConsistencyTokens other = new ConsistencyTokens(Map.of("k1", key(8)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.tokens.offset(other.token(300)));
		Map<String, byte[]> rotated = new LinkedHashMap<>();
		rotated.put("k2", key(9));
		rotated.put("k1", KEY);
		ConsistencyTokens ring = new ConsistencyTokens(rotated);
		assertThat(ring.offset(this.tokens.token(300))).isEqualTo(300);
		assertThat(ring.token(300)).startsWith("000000000000012c.k2.");
		assertThatIllegalArgumentException().as("k2 is unknown to the old ring")
			.isThrownBy(() -> this.tokens.offset(ring.token(400)))
			.withMessageContaining("key");
	}

	@Test
	void theMacIsNotTheBearerTokensSignatureOverTheSameBytes() throws Exception {
		String token = this.tokens.token(300);
		Mac plain = Mac.getInstance("HmacSHA256");
		plain.init(new SecretKeySpec(KEY, "HmacSHA256"));
		byte[] direct = Arrays.copyOf(plain.doFinal(token.substring(0, 16).getBytes(StandardCharsets.US_ASCII)), 16);
		assertThat(token).doesNotEndWith(Base64.getUrlEncoder().withoutPadding().encodeToString(direct));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "1/6B3748D8", "16b3748d8", "000000016b3748d8", "000000016B3748D8", "000000016b3748d80",
			"000000016b3748dg.k1.AAAAAAAAAAAAAAAAAAAAAA", "000000016b3748d8..AAAAAAAAAAAAAAAAAAAAAA",
			"000000016b3748d8.k1.AAAAAAAAAAAAAAAAAAAAA", "000000016b3748d8.k1.AAAAAAAAAAAAAAAAAAAA+A",
			"ffffffffffffffff.k1.AAAAAAAAAAAAAAAAAAAAAA", "00000000000000٣٤.k1.AAAAAAAAAAAAAAAAAAAAAA" })
	void anythingElseIsNotAToken(String token) {
		assertThatIllegalArgumentException().isThrownBy(() -> this.tokens.offset(token));
	}

	@Test
	void aRingNeedsAKeyAndIdsOfTheKeyRingsForm() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ConsistencyTokens(Map.of()));
		assertThatIllegalArgumentException().isThrownBy(() -> new ConsistencyTokens(Map.of("k 1", KEY)));
	}

	@Test
	void aRequestRequiresTheLaterOfItsHeaderAndCookie() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		assertThat(this.tokens.required(request, new MockHttpServletResponse())).isZero();
		request.addHeader(ConsistencyTokens.HEADER, " " + this.tokens.token(300) + " ");
		assertThat(this.tokens.required(request, new MockHttpServletResponse())).isEqualTo(300);
		request.addHeader("Cookie", "x=1");
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, this.tokens.token(500)));
		assertThat(this.tokens.required(request, new MockHttpServletResponse())).isEqualTo(500);
	}

	@Test
	void aMalformedOrForgedTokenIs400NamingWhereItCameFrom() {
		for (String token : List.of("0/16B3748", "7fffffffffffffff")) {
			MockHttpServletRequest request = new MockHttpServletRequest();
			request.addHeader(ConsistencyTokens.HEADER, token);
			assertThatExceptionOfType(InvalidParameterException.class)
				.isThrownBy(() -> this.tokens.required(request, new MockHttpServletResponse()))
				.satisfies((ex) -> assertThat(ex.getBody().getDetail()).contains(ConsistencyTokens.HEADER));
		}
	}

	@Test
	void aCookieThatIsNotATokenOfThisServiceIsIgnoredAndCleared() {
		ConsistencyTokens before = new ConsistencyTokens(Map.of("gone", key(3)));
		for (String value : List.of(before.token(300), "nonsense", "")) {
			MockHttpServletRequest request = withCookie(value);
			MockHttpServletResponse response = new MockHttpServletResponse();
			assertThat(this.tokens.required(request, response)).as(value).isZero();
			assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=;").contains("Max-Age=0");
		}
	}

	/**
	 * A browser sends the host's cookie and a parent domain's of the same name, in no
	 * order that tells them apart: the valid one counts, the other is cleared.
	 */
	@Test
	void ofTwoCookiesOfOneNameTheTokenCounts() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.addHeader("Cookie", "x");
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, "tossed"),
				new Cookie(ConsistencyTokens.COOKIE, this.tokens.token(400)));
		MockHttpServletResponse response = new MockHttpServletResponse();
		assertThat(this.tokens.required(request, response)).isEqualTo(400);
		assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=;");
	}

	@Test
	void overHttpsOnlyTheHostPrefixedCookieCounts() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.setSecure(true);
		request.addHeader("Cookie", "x");
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, this.tokens.token(900)),
				new Cookie(ConsistencyTokens.SECURE_COOKIE, this.tokens.token(400)));
		assertThat(this.tokens.required(request, new MockHttpServletResponse())).isEqualTo(400);
	}

	@Test
	void aReadSetsTheCookieOnlyWhenTheRequestHadOneAndThePositionMoved() {
		MockHttpServletRequest without = new MockHttpServletRequest();
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.tokens.afterRead(without, response, 700);
		assertThat(response.getHeader(ConsistencyTokens.HEADER)).isEqualTo(this.tokens.token(700));
		assertThat(response.getHeaders("Set-Cookie")).isEmpty();

		MockHttpServletRequest behind = withCookie(this.tokens.token(600));
		response = new MockHttpServletResponse();
		this.tokens.afterRead(behind, response, 700);
		assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=" + this.tokens.token(700))
			.contains("HttpOnly", "SameSite=Lax", "Path=/");

		MockHttpServletRequest ahead = withCookie(this.tokens.token(800));
		response = new MockHttpServletResponse();
		this.tokens.afterRead(ahead, response, 700);
		assertThat(response.getHeaders("Set-Cookie")).isEmpty();
	}

	@Test
	void aWriteAlwaysSetsTheCookie() {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.tokens.afterWrite(new MockHttpServletRequest(), response, 900);
		assertThat(response.getHeader(ConsistencyTokens.HEADER)).isEqualTo(this.tokens.token(900));
		assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=" + this.tokens.token(900))
			.doesNotContain("Secure");
	}

	@Test
	void overHttpsTheCookieIsSecure() {
		MockHttpServletRequest https = new MockHttpServletRequest();
		https.setSecure(true);
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.tokens.afterWrite(https, response, 900);
		assertThat(response.getHeader("Set-Cookie")).startsWith("__Host-consistency_token=")
			.contains("Secure", "HttpOnly", "Path=/")
			.doesNotContainIgnoringCase("Domain");
	}

	private static MockHttpServletRequest withCookie(String token) {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.addHeader("Cookie", ConsistencyTokens.COOKIE + "=" + token);
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, token));
		return request;
	}

	private static byte[] key(int fill) {
		byte[] key = new byte[32];
		Arrays.fill(key, (byte) fill);
		return key;
	}

}
