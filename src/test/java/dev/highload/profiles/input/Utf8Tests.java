package dev.highload.profiles.input;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the strict decoder refuses that lenient ones read as another character. */
class Utf8Tests {

	@Test
	void theFirstMalformedByteIsFoundWhereverLenientDecodersWouldGuess() {
		assertThat(Utf8.firstMalformed(bytes("61c3a9f09d9080"))).as("a, é, U+1D400").isEqualTo(-1);
		assertThat(Utf8.firstMalformed(bytes("61c080"))).as("overlong U+0000").isEqualTo(1);
		assertThat(Utf8.firstMalformed(bytes("6161c181"))).as("overlong 'A'").isEqualTo(2);
		assertThat(Utf8.firstMalformed(bytes("eda080"))).as("an encoded surrogate").isZero();
		assertThat(Utf8.firstMalformed(bytes("f4908080"))).as("above U+10FFFF").isZero();
		assertThat(Utf8.firstMalformed(bytes("6180"))).as("a stray continuation byte").isEqualTo(1);
		assertThat(Utf8.firstMalformed(bytes("61e282"))).as("a truncated sequence").isEqualTo(1);
	}

	@Test
	void aQueryPartIsPercentDecodedThenDecodedStrictly() {
		assertThat(Utf8.percentDecoded("%D0%98%D0%B2+a")).isEqualTo("Ив a");
		assertThat(Utf8.percentDecoded("a%2Bb")).isEqualTo("a+b");
		assertThat(Utf8.percentDecoded("%C0%80")).isNull();
		assertThat(Utf8.percentDecoded("%FF")).isNull();
		assertThat(Utf8.percentDecoded("%4")).isNull();
		assertThat(Utf8.percentDecoded("%zz")).isNull();
	}

	private static byte[] bytes(String hex) {
		return HexFormat.of().parseHex(hex);
	}

}
