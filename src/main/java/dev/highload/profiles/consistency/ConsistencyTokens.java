package dev.highload.profiles.consistency;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.highload.profiles.input.InvalidParameterException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;

/**
 * Consistency tokens over HTTP (docs/consistency.md). A request may carry one in the
 * {@value #HEADER} header or the {@value #COOKIE} cookie ({@value #SECURE_COOKIE} over
 * HTTPS); if it carries both, the later position counts. A header that is not a token of
 * this service is a client's mistake and answered 400; a cookie that is not is ignored
 * and cleared, since a client may not have set it: another site under the same parent
 * domain can set a cookie of that name for the whole domain, and a 400 on every request
 * would lock the browser out. Over HTTPS the cookie carries the {@code __Host-} prefix,
 * which a browser accepts only from this host, Secure and for the whole path, so no
 * sibling can set the cookie this service reads there. Every answer that read or wrote
 * carries the position it saw in the header; the cookie is set by writes, and by reads
 * when the request came with one and the position moved, so a browser or a load-test
 * session that keeps cookies gets read-your-writes and monotonic reads without doing
 * anything.
 * <p>
 * A token is a WAL position (a byte offset, {@code routing.WalPosition}) as sixteen
 * hexadecimal digits, the id of the key that signed it and a MAC:
 * {@code 000000016b3748d8.k1.<22 Base64url characters>}. The MAC is the first 16 bytes of
 * HMAC-SHA256 over the digits, keyed by a key derived from one of the service's token
 * keys (HMAC-SHA256 of the key over {@value #PURPOSE}, so that no MAC made here is a
 * bearer token's signature or the other way round). A client can neither forge a position
 * nor move one forward: a token is only ever a position this service answered, so a token
 * cannot send reads to the primary by naming a position no replica has. Clients treat it
 * as opaque.
 * <p>
 * No handler calls this class: {@link AtLeastResolver} gives a {@link ConsistentRead}
 * handler the position its request requires, and {@link ConsistencyTokenAnswers} answers
 * the position of what it returned.
 */
public final class ConsistencyTokens {

	/** The request and response header. */
	public static final String HEADER = "Consistency-Token";

	/** The cookie's name over plain HTTP. */
	public static final String COOKIE = "consistency_token";

	/** The cookie's name over HTTPS: only this host can set it. */
	public static final String SECURE_COOKIE = "__Host-" + COOKIE;

	/** A token's form, for the OpenAPI document. */
	public static final String PATTERN = "^[0-9a-f]{16}\\.[A-Za-z0-9._-]{1,64}\\.[A-Za-z0-9_-]{22}$";

	/** What the MAC keys are derived for. */
	static final String PURPOSE = "user-profiles consistency token v1";

	private static final int DIGITS = 16;

	private static final int MAC_BYTES = 16;

	private static final int MAC_CHARACTERS = 22;

	private static final int MAX_LENGTH = DIGITS + 1 + 64 + 1 + MAC_CHARACTERS;

	private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

	private static final String ALGORITHM = "HmacSHA256";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

	private final String signingId;

	/** Per key id, a MAC per thread: a {@link Mac} is not thread-safe. */
	private final Map<String, ThreadLocal<Mac>> macs;

	/**
	 * The last token made and the last one read: reads that see the same position (all of
	 * them, between two writes) share one MAC computation.
	 */
	private volatile Known lastMade = new Known(-1, null);

	private volatile Known lastRead = new Known(-1, null);

	/**
	 * @param keys the token keys by id, the one that signs first (the ring of
	 * {@code app.auth.token-keys}); each key verifies the tokens that name its id
	 * @throws IllegalArgumentException if there is no key, or an id is not 1 to 64 of
	 * {@code A-Z a-z 0-9 . _ -}
	 */
	public ConsistencyTokens(Map<String, byte[]> keys) {
		if (keys.isEmpty()) {
			throw new IllegalArgumentException("Consistency tokens need a key");
		}
		Map<String, ThreadLocal<Mac>> macs = new LinkedHashMap<>();
		for (Map.Entry<String, byte[]> key : keys.entrySet()) {
			if (!KEY_ID.matcher(key.getKey()).matches()) {
				throw new IllegalArgumentException("A key id must be 1 to 64 of A-Z a-z 0-9 . _ -");
			}
			SecretKeySpec derived = new SecretKeySpec(
					mac(new SecretKeySpec(key.getValue(), ALGORITHM)).doFinal(PURPOSE.getBytes(StandardCharsets.UTF_8)),
					ALGORITHM);
			macs.put(key.getKey(), ThreadLocal.withInitial(() -> mac(derived)));
		}
		this.macs = Map.copyOf(macs);
		this.signingId = keys.keySet().iterator().next();
	}

	/**
	 * Reads a token.
	 * @param token a token this service made
	 * @return the WAL offset
	 * @throws IllegalArgumentException if this service did not make it, or made it with a
	 * key it no longer holds
	 */
	public long offset(String token) {
		Known read = this.lastRead;
		if (token.equals(read.token())) {
			return read.offset();
		}
		int length = token.length();
		int keyEnd = length - MAC_CHARACTERS - 1;
		if (length > MAX_LENGTH || keyEnd <= DIGITS + 1 || token.charAt(DIGITS) != '.' || token.charAt(keyEnd) != '.') {
			throw new IllegalArgumentException("is not a consistency token of this service");
		}
		long offset = digits(token);
		ThreadLocal<Mac> mac = this.macs.get(token.substring(DIGITS + 1, keyEnd));
		if (mac == null) {
			throw new IllegalArgumentException("was signed with a key this service does not hold");
		}
		byte[] given;
		try {
			given = DECODER.decode(token.substring(keyEnd + 1));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("is not a consistency token of this service");
		}
		if (!MessageDigest.isEqual(given, sign(mac.get(), token.substring(0, DIGITS)))) {
			throw new IllegalArgumentException("is not a consistency token of this service");
		}
		this.lastRead = new Known(offset, token);
		return offset;
	}

	/**
	 * Writes a token, signed with the first key.
	 * @param offset a WAL offset, not negative
	 * @return the token
	 */
	public String token(long offset) {
		Known made = this.lastMade;
		if (made.offset() == offset) {
			return made.token();
		}
		String hex = Long.toHexString(offset);
		String digits = "0".repeat(DIGITS - hex.length()) + hex;
		String token = digits + "." + this.signingId + "."
				+ ENCODER.encodeToString(sign(this.macs.get(this.signingId).get(), digits));
		this.lastMade = new Known(offset, token);
		return token;
	}

	/**
	 * The position a request requires.
	 * @param request the request
	 * @param response its response: a cookie that is not a token of this service is
	 * cleared in it (a key's rotation, or a restart of the local run, whose key is made
	 * at start, leaves such cookies behind, and another site of the parent domain may set
	 * one)
	 * @return the later of the header's and the cookie's WAL offsets; 0 if it carries
	 * neither
	 * @throws InvalidParameterException 400 if the header is not a token this service
	 * made
	 */
	long required(HttpServletRequest request, HttpServletResponse response) {
		long required = 0;
		String header = request.getHeader(HEADER);
		if (header != null) {
			required = parse(header, "header " + HEADER);
		}
		boolean malformed = false;
		for (Cookie cookie : cookies(request)) {
			try {
				required = Math.max(required, offset(cookie.getValue().strip()));
			}
			catch (IllegalArgumentException ex) {
				malformed = true;
			}
		}
		if (malformed) {
			response.addHeader(HttpHeaders.SET_COOKIE, cookieOf(request, "").maxAge(0).build().toString());
		}
		return required;
	}

	/**
	 * Gives a read's position to the client: in the header always, in the cookie when the
	 * request carried one that it moves forward.
	 * @param request the request
	 * @param response the response, not yet committed
	 * @param seen the WAL offset the read saw
	 */
	void afterRead(HttpServletRequest request, HttpServletResponse response, long seen) {
		response.setHeader(HEADER, token(seen));
		List<Cookie> cookies = cookies(request);
		if (!cookies.isEmpty() && cookies.stream().noneMatch((cookie) -> sameOrLater(cookie.getValue(), seen))) {
			setCookie(request, response, seen);
		}
	}

	/**
	 * Gives a write's position to the client, in the header and the cookie.
	 * @param request the request
	 * @param response the response, not yet committed
	 * @param written a WAL offset at or after the write's commit
	 */
	void afterWrite(HttpServletRequest request, HttpServletResponse response, long written) {
		response.setHeader(HEADER, token(written));
		setCookie(request, response, written);
	}

	private void setCookie(HttpServletRequest request, HttpServletResponse response, long position) {
		response.addHeader(HttpHeaders.SET_COOKIE, cookieOf(request, token(position)).build().toString());
	}

	/**
	 * The cookie's attributes, for setting and clearing it alike. Not a secret and not a
	 * credential: a position any client may hold. HttpOnly and SameSite all the same, as
	 * nothing in a page needs to read it; Secure when the client came over HTTPS (behind
	 * HAProxy, which says so in X-Forwarded-Proto), so that it is never sent in clear,
	 * and then with the {@code __Host-} prefix (no Domain, Path=/).
	 */
	private static ResponseCookie.ResponseCookieBuilder cookieOf(HttpServletRequest request, String value) {
		return ResponseCookie.from(cookieName(request), value)
			.path("/")
			.httpOnly(true)
			.sameSite("Lax")
			.secure(request.isSecure());
	}

	private static String cookieName(HttpServletRequest request) {
		return request.isSecure() ? SECURE_COOKIE : COOKIE;
	}

	private boolean sameOrLater(String token, long seen) {
		try {
			return offset(token) >= seen;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private long parse(String token, String where) {
		try {
			return offset(token.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidParameterException(where, ex.getMessage());
		}
	}

	private static long digits(String token) {
		long offset = 0;
		for (int i = 0; i < DIGITS; i++) {
			char c = token.charAt(i);
			int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
			if (digit < 0) {
				throw new IllegalArgumentException("is not a consistency token of this service");
			}
			offset = (offset << 4) | digit;
		}
		if (offset < 0) {
			throw new IllegalArgumentException("is not a consistency token of this service");
		}
		return offset;
	}

	private static byte[] sign(Mac mac, String digits) {
		byte[] full = mac.doFinal(digits.getBytes(StandardCharsets.US_ASCII));
		byte[] truncated = new byte[MAC_BYTES];
		System.arraycopy(full, 0, truncated, 0, MAC_BYTES);
		return truncated;
	}

	private static Mac mac(SecretKeySpec key) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(key);
			return mac;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HMAC-SHA256 is not available", ex);
		}
	}

	/**
	 * The request's cookies of this scheme's name: a browser sends two of one name when
	 * one was set for the host and one for a parent domain, in no order that tells them
	 * apart.
	 */
	private static List<Cookie> cookies(HttpServletRequest request) {
		if (request.getHeader(HttpHeaders.COOKIE) == null) {
			return List.of();
		}
		Cookie[] cookies = request.getCookies();
		if (cookies == null) {
			return List.of();
		}
		String name = cookieName(request);
		List<Cookie> named = new ArrayList<>(1);
		for (Cookie cookie : cookies) {
			if (name.equals(cookie.getName())) {
				named.add(cookie);
			}
		}
		return named;
	}

	/** A token and the offset it carries. */
	private record Known(long offset, String token) {
	}

}
