package dev.highload.profiles.web;

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

	@Test
	void aTokenIsSixteenHexDigitsAndReadsBackAsTheSameOffset() {
		assertThat(ConsistencyTokens.token(0x1_6B37_48D8L)).isEqualTo("000000016b3748d8");
		assertThat(ConsistencyTokens.offset("000000016b3748d8")).isEqualTo(0x1_6B37_48D8L);
		assertThat(ConsistencyTokens.offset("000000016B3748D8")).isEqualTo(0x1_6B37_48D8L);
		assertThat(ConsistencyTokens.token(0)).isEqualTo("0000000000000000");
		assertThat(ConsistencyTokens.offset(ConsistencyTokens.token(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "1/6B3748D8", "16b3748d8", "000000016b3748d80", "000000016b3748dg", "+00000016b3748d8",
			"ffffffffffffffff", "8000000000000000", "00000000000000٣٤" })
	void anythingElseIsNotAToken(String token) {
		assertThatIllegalArgumentException().isThrownBy(() -> ConsistencyTokens.offset(token));
	}

	@Test
	void aRequestRequiresTheLaterOfItsHeaderAndCookie() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		assertThat(ConsistencyTokens.required(request)).isZero();
		request.addHeader(ConsistencyTokens.HEADER, " " + ConsistencyTokens.token(300) + " ");
		assertThat(ConsistencyTokens.required(request)).isEqualTo(300);
		request.addHeader("Cookie", "x=1");
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, ConsistencyTokens.token(500)));
		assertThat(ConsistencyTokens.required(request)).isEqualTo(500);
	}

	@Test
	void aMalformedTokenIs400NamingWhereItCameFrom() {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.addHeader(ConsistencyTokens.HEADER, "0/16B3748");
		assertThatExceptionOfType(InvalidParameterException.class).isThrownBy(() -> ConsistencyTokens.required(request))
			.satisfies((ex) -> assertThat(ex.getBody().getDetail()).contains(ConsistencyTokens.HEADER));
	}

	@Test
	void aReadSetsTheCookieOnlyWhenTheRequestHadOneAndThePositionMoved() {
		MockHttpServletRequest without = new MockHttpServletRequest();
		MockHttpServletResponse response = new MockHttpServletResponse();
		ConsistencyTokens.afterRead(without, response, 700);
		assertThat(response.getHeader(ConsistencyTokens.HEADER)).isEqualTo(ConsistencyTokens.token(700));
		assertThat(response.getHeaders("Set-Cookie")).isEmpty();

		MockHttpServletRequest behind = withCookie(ConsistencyTokens.token(600));
		response = new MockHttpServletResponse();
		ConsistencyTokens.afterRead(behind, response, 700);
		assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=" + ConsistencyTokens.token(700))
			.contains("HttpOnly", "SameSite=Lax", "Path=/");

		MockHttpServletRequest ahead = withCookie(ConsistencyTokens.token(800));
		response = new MockHttpServletResponse();
		ConsistencyTokens.afterRead(ahead, response, 700);
		assertThat(response.getHeaders("Set-Cookie")).isEmpty();
	}

	@Test
	void aWriteAlwaysSetsTheCookie() {
		MockHttpServletResponse response = new MockHttpServletResponse();
		ConsistencyTokens.afterWrite(response, 900);
		assertThat(response.getHeader(ConsistencyTokens.HEADER)).isEqualTo(ConsistencyTokens.token(900));
		assertThat(response.getHeader("Set-Cookie")).startsWith("consistency_token=" + ConsistencyTokens.token(900));
	}

	private static MockHttpServletRequest withCookie(String token) {
		MockHttpServletRequest request = new MockHttpServletRequest();
		request.addHeader("Cookie", ConsistencyTokens.COOKIE + "=" + token);
		request.setCookies(new Cookie(ConsistencyTokens.COOKIE, token));
		return request;
	}

}
