package dev.highload.profiles.web;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;

/**
 * Consistency tokens over HTTP (docs/consistency.md). A request may carry one in the
 * {@value #HEADER} header or the {@value #COOKIE} cookie; if it carries both, the later
 * position counts. Every answer that read or wrote carries the position it saw in the
 * header; the cookie is set by writes, and by reads when the request came with one and
 * the position moved, so a browser or a load-test session that keeps cookies gets
 * read-your-writes and monotonic reads without doing anything.
 * <p>
 * A token is a WAL position (a byte offset, {@code routing.WalPosition}) as sixteen
 * hexadecimal digits. Clients treat it as opaque; the features turn the offsets this
 * class reads and writes into positions, so the web layer knows nothing of routing.
 */
public final class ConsistencyTokens {

	/** The request and response header. */
	public static final String HEADER = "Consistency-Token";

	/** The cookie's name. */
	public static final String COOKIE = "consistency_token";

	private static final int LENGTH = 16;

	private ConsistencyTokens() {
	}

	/**
	 * Reads a token.
	 * @param token sixteen hexadecimal digits (ASCII), as {@link #token} writes them
	 * @return the WAL offset
	 * @throws IllegalArgumentException if it is not a token this service could have made
	 */
	public static long offset(String token) {
		if (token.length() != LENGTH) {
			throw new IllegalArgumentException("must be " + LENGTH + " hexadecimal digits");
		}
		long offset = 0;
		for (int i = 0; i < LENGTH; i++) {
			char c = token.charAt(i);
			int digit = (c >= '0' && c <= '9') ? c - '0'
					: (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
			if (digit < 0) {
				throw new IllegalArgumentException("must be " + LENGTH + " hexadecimal digits");
			}
			offset = (offset << 4) | digit;
		}
		if (offset < 0) {
			throw new IllegalArgumentException("is beyond any WAL position");
		}
		return offset;
	}

	/**
	 * Writes a token.
	 * @param offset a WAL offset, not negative
	 * @return sixteen lower-case hexadecimal digits
	 */
	public static String token(long offset) {
		String hex = Long.toHexString(offset);
		return "0".repeat(LENGTH - hex.length()) + hex;
	}

	/**
	 * The position a request requires.
	 * @param request the request
	 * @return the later of the header's and the cookie's WAL offsets; 0 if it carries
	 * neither
	 * @throws InvalidParameterException 400 if either is not a token this service made
	 */
	public static long required(HttpServletRequest request) {
		long required = 0;
		String header = request.getHeader(HEADER);
		if (header != null) {
			required = parse(header, "header " + HEADER);
		}
		Cookie cookie = cookie(request);
		if (cookie != null) {
			required = Math.max(required, parse(cookie.getValue(), "cookie " + COOKIE));
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
	public static void afterRead(HttpServletRequest request, HttpServletResponse response, long seen) {
		response.setHeader(HEADER, token(seen));
		Cookie cookie = cookie(request);
		if (cookie != null && !sameOrLater(cookie.getValue(), seen)) {
			setCookie(response, seen);
		}
	}

	/**
	 * Gives a write's position to the client, in the header and the cookie.
	 * @param response the response, not yet committed
	 * @param written a WAL offset at or after the write's commit
	 */
	public static void afterWrite(HttpServletResponse response, long written) {
		response.setHeader(HEADER, token(written));
		setCookie(response, written);
	}

	private static void setCookie(HttpServletResponse response, long position) {
		// Not a secret and not a credential: a position any client may hold. HttpOnly
		// and SameSite all the same, as nothing in a page needs to read it.
		response.addHeader(HttpHeaders.SET_COOKIE,
				ResponseCookie.from(COOKIE, token(position))
					.path("/")
					.httpOnly(true)
					.sameSite("Lax")
					.build()
					.toString());
	}

	private static boolean sameOrLater(String token, long seen) {
		try {
			return offset(token) >= seen;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private static Cookie cookie(HttpServletRequest request) {
		if (request.getHeader(HttpHeaders.COOKIE) == null) {
			return null;
		}
		Cookie[] cookies = request.getCookies();
		if (cookies != null) {
			for (Cookie cookie : cookies) {
				if (COOKIE.equals(cookie.getName())) {
					return cookie;
				}
			}
		}
		return null;
	}

	private static long parse(String token, String where) {
		try {
			return offset(token.strip());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidParameterException(where, "is not a consistency token: " + ex.getMessage());
		}
	}

}
