package dev.highload.profiles.input;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8: the JDK's decoder reports what lenient decoders turn into U+FFFD or,
 * worse, into another character: stray continuation bytes, truncated sequences, overlong
 * forms ({@code C0 80} is U+0000 to Jackson, {@code C1 81} is 'A'), encoded surrogates,
 * code points above U+10FFFF.
 */
final class Utf8 {

	private Utf8() {
	}

	/**
	 * @param bytes bytes said to be UTF-8
	 * @return the offset of the first byte that is not part of valid UTF-8, or -1
	 */
	static int firstMalformed(byte[] bytes) {
		CharsetDecoder decoder = decoder();
		ByteBuffer in = ByteBuffer.wrap(bytes);
		CoderResult result = decoder.decode(in, CharBuffer.allocate(bytes.length), true);
		return result.isError() ? in.position() : -1;
	}

	/**
	 * Percent-decodes one part of a query string as a servlet container does for
	 * parameters ({@code +} is a space), then decodes the bytes strictly.
	 * @param encoded the raw text between {@code &} and {@code =}
	 * @return the text, or {@code null} for bytes that are not UTF-8 or a bad escape
	 */
	static String percentDecoded(String encoded) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
		for (int i = 0; i < encoded.length(); i++) {
			char c = encoded.charAt(i);
			if (c == '%') {
				if (i + 2 >= encoded.length()) {
					return null;
				}
				int high = Character.digit(encoded.charAt(i + 1), 16);
				int low = Character.digit(encoded.charAt(i + 2), 16);
				if (high < 0 || low < 0) {
					return null;
				}
				bytes.write((high << 4) | low);
				i += 2;
			}
			else {
				bytes.write((c == '+') ? ' ' : c);
			}
		}
		try {
			return decoder().decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
		}
		catch (CharacterCodingException ex) {
			return null;
		}
	}

	private static CharsetDecoder decoder() {
		return StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPORT)
			.onUnmappableCharacter(CodingErrorAction.REPORT);
	}

}
