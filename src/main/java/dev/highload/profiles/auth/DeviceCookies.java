package dev.highload.profiles.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.ResponseCookie;
import org.springframework.stereotype.Component;

/**
 * Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a
 * client that has logged in to an account gets a signed cookie naming that account, and
 * with it keeps its own way in to that account whatever others fail there. Its attempts
 * are counted against the cookie alone ({@link LoginThrottle#acquireDevice}), not against
 * its address or the account's ceiling, so attackers failing on the account from many
 * addresses, without pause, cannot keep its owner waiting.
 * <p>
 * The value is {@code <account>.<device id>.<issued, epoch seconds>.<MAC>.<key id>}: the
 * device id 16 random bytes, the MAC HMAC-SHA256 over the rest with a key derived from
 * the token key ring ({@code app.auth.token-keys}) for this purpose alone, so every
 * instance of a deployment accepts the cookies of the others and a key's rotation retires
 * its cookies with its tokens. A cookie is good for {@code app.auth.device-cookie-ttl}
 * after its login (30 days), for the account it names only; each successful login gives a
 * new one. A cookie that is not good (forged, expired, another account's, an unknown key)
 * is ignored: the login is throttled as any client's.
 * <p>
 * Set as {@code device}, HttpOnly, SameSite=Strict, path {@code /login} (no other request
 * carries it), Secure when the client came over HTTPS. One cookie per client: logging in
 * to another account replaces it.
 */
@Component
class DeviceCookies {

	static final String COOKIE = "device";

	private static final String ALGORITHM = "HmacSHA256";

	private static final String PURPOSE = "device-cookie/1";

	private static final int DEVICE_ID_BYTES = 16;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

	private final Map<String, SecretKeySpec> keys;

	private final String signingId;

	private final Duration ttl;

	private final Clock clock;

	private final SecureRandom random = new SecureRandom();

	DeviceCookies(AuthProperties properties, Clock clock) {
		Map<String, SecretKeySpec> derived = new LinkedHashMap<>();
		for (Map.Entry<String, byte[]> key : TokenKeys.check(properties.tokenKeys()).entrySet()) {
			byte[] bytes = mac(new SecretKeySpec(key.getValue(), ALGORITHM), PURPOSE.getBytes(StandardCharsets.UTF_8));
			derived.put(key.getKey(), new SecretKeySpec(bytes, ALGORITHM));
		}
		this.keys = Map.copyOf(derived);
		this.signingId = derived.keySet().iterator().next();
		this.ttl = properties.deviceCookieTtl();
		this.clock = clock;
	}

	/**
	 * The device cookie's value as the client sent it, not decoded: a value with a
	 * {@code %} that is no escape is not a cookie of this service, and must not fail the
	 * login (Spring's {@code @CookieValue} decodes it, and answered 500).
	 * @param request a login request
	 * @return the first {@value #COOKIE} cookie's value, or {@code null}
	 */
	static String of(HttpServletRequest request) {
		Cookie[] cookies = request.getCookies();
		if (cookies != null) {
			for (Cookie cookie : cookies) {
				if (COOKIE.equals(cookie.getName())) {
					return cookie.getValue();
				}
			}
		}
		return null;
	}

	/**
	 * @param account the account just logged in to
	 * @return a new cookie's value for it
	 */
	String issue(UUID account) {
		byte[] device = new byte[DEVICE_ID_BYTES];
		this.random.nextBytes(device);
		String signed = account + "." + ENCODER.encodeToString(device) + "." + this.clock.instant().getEpochSecond();
		return signed + "." + ENCODER.encodeToString(mac(this.keys.get(this.signingId), bytes(signed))) + "."
				+ this.signingId;
	}

	/**
	 * @param value a cookie's value as the client sent it, or {@code null}
	 * @param account the account the login is for
	 * @return the device id, when the cookie was made here for that account and has not
	 * expired
	 */
	Optional<String> device(String value, UUID account) {
		if (value == null || value.length() > 256) {
			return Optional.empty();
		}
		String[] parts = value.split("\\.", 5);
		if (parts.length != 5 || !parts[0].equals(account.toString())) {
			return Optional.empty();
		}
		SecretKeySpec key = this.keys.get(parts[4]);
		if (key == null) {
			return Optional.empty();
		}
		byte[] given;
		long issued;
		try {
			given = DECODER.decode(parts[3]);
			issued = Long.parseLong(parts[2]);
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
		String signed = parts[0] + "." + parts[1] + "." + parts[2];
		if (!MessageDigest.isEqual(given, mac(key, bytes(signed)))) {
			return Optional.empty();
		}
		long now = this.clock.instant().getEpochSecond();
		if (issued > now + 60 || now - issued > this.ttl.toSeconds()) {
			return Optional.empty();
		}
		return Optional.of(parts[1]);
	}

	/**
	 * @param value a value from {@link #issue}
	 * @param secure whether the client came over HTTPS
	 * @return the cookie to set
	 */
	ResponseCookie cookie(String value, boolean secure) {
		return ResponseCookie.from(COOKIE, value)
			.path("/login")
			.httpOnly(true)
			.sameSite("Strict")
			.secure(secure)
			.maxAge(this.ttl)
			.build();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] mac(SecretKeySpec key, byte[] data) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(key);
			return mac.doFinal(data);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is missing from this JVM", ex);
		}
	}

}
