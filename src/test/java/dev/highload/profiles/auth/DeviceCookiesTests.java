package dev.highload.profiles.auth;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import jakarta.servlet.http.Cookie;
import org.junit.jupiter.api.Test;

import org.springframework.http.ResponseCookie;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device cookie: good for the account it names, from this key ring, until it expires.
 */
class DeviceCookiesTests {

	private static final String OLD = "old:" + randomKey();

	private static final String NEW = "new:" + randomKey();

	private final MutableClock clock = new MutableClock(Instant.parse("2026-11-28T12:00:00Z"));

	private final UUID account = UUID.randomUUID();

	@Test
	void aCookieNamesTheDeviceOfTheAccountItWasMadeFor() {
		DeviceCookies cookies = cookies(OLD);
		String value = cookies.issue(this.account);
		assertThat(cookies.device(value, this.account)).hasValueSatisfying((device) -> assertThat(device).hasSize(22));
		assertThat(cookies.device(cookies.issue(this.account), this.account)).as("each login gives another device id")
			.isNotEqualTo(cookies.device(value, this.account));
		assertThat(cookies.device(value, UUID.randomUUID())).as("another account").isEmpty();
	}

	@Test
	void aCookieChangedOrNotMadeHereIsIgnored() {
		DeviceCookies cookies = cookies(OLD);
		String value = cookies.issue(this.account);
		String[] parts = value.split("\\.", 5);
		String otherDevice = String.join(".", parts[0], "AAAAAAAAAAAAAAAAAAAAAA", parts[2], parts[3], parts[4]);
		String later = String.join(".", parts[0], parts[1], Long.toString(Long.parseLong(parts[2]) + 1), parts[3],
				parts[4]);
		String unknownKey = String.join(".", parts[0], parts[1], parts[2], parts[3], "other");
		for (String forged : List.of(otherDevice, later, unknownKey, "", "a.b.c.d.e", value + "x", value.substring(1),
				parts[0] + ".x")) {
			assertThat(cookies.device(forged, this.account)).as(forged).isEmpty();
		}
		assertThat(cookies.device(null, this.account)).isEmpty();
		assertThat(cookies(NEW).device(value, this.account)).as("another deployment's key ring").isEmpty();
	}

	@Test
	void aCookieExpiresAfterItsTimeAndSurvivesARotationWhileItsKeyIsInTheRing() {
		DeviceCookies cookies = cookies(OLD);
		String value = cookies.issue(this.account);
		this.clock.advance(Duration.ofDays(29));
		assertThat(cookies(NEW, OLD).device(value, this.account)).as("the old key still verifies").isPresent();
		this.clock.advance(Duration.ofDays(1).plusSeconds(1));
		assertThat(cookies.device(value, this.account)).as("30 days and a second").isEmpty();
	}

	@Test
	void theCookieIsForLoginsAloneAndOutOfReachOfScripts() {
		ResponseCookie cookie = cookies(OLD).cookie("value", true);
		assertThat(cookie.getName()).isEqualTo("device");
		assertThat(cookie.getPath()).isEqualTo("/login");
		assertThat(cookie.isHttpOnly()).isTrue();
		assertThat(cookie.isSecure()).isTrue();
		assertThat(cookie.getSameSite()).isEqualTo("Strict");
		assertThat(cookie.getMaxAge()).isEqualTo(Duration.ofDays(30));
		assertThat(cookies(OLD).cookie("value", false).isSecure()).as("over plain HTTP").isFalse();
	}

	@Test
	void theValueIsReadAsSentWithoutDecoding() {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/login");
		assertThat(DeviceCookies.of(request)).isNull();
		request.setCookies(new Cookie("consistency_token", "x"), new Cookie("device", "%)-1w"));
		assertThat(DeviceCookies.of(request)).isEqualTo("%)-1w");
		assertThat(cookies(OLD).device(DeviceCookies.of(request), this.account)).isEmpty();
	}

	private DeviceCookies cookies(String... keys) {
		return new DeviceCookies(new AuthProperties(List.of(keys), Duration.ofHours(1), 0, 64, Duration.ofDays(30)),
				this.clock);
	}

	private static String randomKey() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		return Base64.getEncoder().encodeToString(key);
	}

}
