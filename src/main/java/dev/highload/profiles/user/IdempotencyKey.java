package dev.highload.profiles.user;

import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.UUID;

import dev.highload.profiles.input.InvalidParameterException;

/**
 * The key that makes a registration happen at most once: the {@code Idempotency-Key}
 * request header (draft-ietf-httpapi-idempotency-key-header-07), or one the server makes
 * when the client sent none, so that every registration has a key a retry can name.
 * <p>
 * The draft's value is a Structured Field string (RFC 8941, {@code "..."}, with only
 * {@code \"} and {@code \\} escaped); a bare value, as Stripe's clients send, is taken as
 * it is. {@code "abc"} and {@code abc} are the same key. The key itself has 1 to
 * {@value #MAX_LENGTH} printable ASCII characters (U+0020 to U+007E); anything else is
 * 400 naming the header.
 *
 * @param value the key, unquoted
 */
record IdempotencyKey(String value) {

	static final String HEADER = "Idempotency-Key";

	static final int MAX_LENGTH = 255;

	/**
	 * What the OpenAPI document allows, as the header arrives: printable ASCII, at most a
	 * quoted key with every character escaped. Wider than what {@link #parse} accepts,
	 * never narrower.
	 */
	static final String HEADER_PATTERN = "^[\\t\\x20-\\x7E]+$";

	static final int HEADER_MAX_LENGTH = 2 + 2 * MAX_LENGTH;

	/**
	 * The key of a request.
	 * @param fields the values of every {@value #HEADER} field of the request
	 * @return the one sent, or a new random one if none was
	 * @throws InvalidParameterException if the header is sent more than once or its value
	 * is not a key
	 */
	static IdempotencyKey of(Enumeration<String> fields) {
		List<String> values = (fields != null) ? Collections.list(fields) : List.of();
		if (values.isEmpty()) {
			return new IdempotencyKey(UUID.randomUUID().toString());
		}
		if (values.size() > 1) {
			throw invalid("must be given once");
		}
		return parse(values.get(0));
	}

	/**
	 * @param field one header field's value
	 * @return the key it carries
	 * @throws InvalidParameterException if it carries none
	 */
	static IdempotencyKey parse(String field) {
		String value = stripWhitespace(field);
		String key = (!value.isEmpty() && value.charAt(0) == '"') ? unquote(value) : value;
		if (key.isEmpty()) {
			throw invalid("must not be empty");
		}
		if (key.length() > MAX_LENGTH) {
			throw invalid("must be at most " + MAX_LENGTH + " characters");
		}
		for (int i = 0; i < key.length(); i++) {
			if (!isPrintableAscii(key.charAt(i))) {
				throw invalid("must be printable ASCII characters (U+0020 to U+007E)");
			}
		}
		return new IdempotencyKey(key);
	}

	/** The key as a Structured Field string, as a client sends it back. */
	String headerValue() {
		return "\"" + this.value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

	/**
	 * RFC 8941, 4.2.5: an sf-string and nothing after it (a parameter would be a
	 * different header than the one documented, so it is refused rather than ignored).
	 */
	private static String unquote(String value) {
		StringBuilder key = new StringBuilder(value.length());
		for (int i = 1; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '\\') {
				i++;
				if (i == value.length() || (value.charAt(i) != '"' && value.charAt(i) != '\\')) {
					throw invalid("must be a string: only \\\" and \\\\ may be escaped");
				}
				key.append(value.charAt(i));
			}
			else if (c == '"') {
				if (i != value.length() - 1) {
					throw invalid("must be one string, without anything after its closing quote");
				}
				return key.toString();
			}
			else if (!isPrintableAscii(c)) {
				throw invalid("must be printable ASCII characters (U+0020 to U+007E)");
			}
			else {
				key.append(c);
			}
		}
		throw invalid("must be a string: the closing quote is missing");
	}

	/** Leading and trailing spaces and tabs, as HTTP's field syntax ignores them. */
	private static String stripWhitespace(String field) {
		int start = 0;
		int end = field.length();
		while (start < end && isWhitespace(field.charAt(start))) {
			start++;
		}
		while (end > start && isWhitespace(field.charAt(end - 1))) {
			end--;
		}
		return field.substring(start, end);
	}

	private static boolean isWhitespace(char c) {
		return c == ' ' || c == '\t';
	}

	private static boolean isPrintableAscii(char c) {
		return c >= 0x20 && c <= 0x7E;
	}

	private static InvalidParameterException invalid(String message) {
		return new InvalidParameterException(HEADER, message);
	}

	@Override
	public String toString() {
		return headerValue();
	}

}
