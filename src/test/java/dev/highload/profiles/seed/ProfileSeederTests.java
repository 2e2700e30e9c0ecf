package dev.highload.profiles.seed;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class ProfileSeederTests {

	@Test
	void backslashIsDoubled() {
		assertThat(ProfileSeeder.escape("a\\b")).isEqualTo("a\\\\b");
		assertThat(ProfileSeeder.escape("\\")).isEqualTo("\\\\");
		assertThat(ProfileSeeder.escape("\\\\")).isEqualTo("\\\\\\\\");
	}

	@Test
	void backslashBeforeNIsNotReadAsNull() {
		assertThat(ProfileSeeder.escape("\\N")).isEqualTo("\\\\N");
	}

	@Test
	void tabIsEscaped() {
		assertThat(ProfileSeeder.escape("a\tb")).isEqualTo("a\\tb");
	}

	@Test
	void newlineIsEscaped() {
		assertThat(ProfileSeeder.escape("a\nb")).isEqualTo("a\\nb");
	}

	@Test
	void carriageReturnIsEscaped() {
		assertThat(ProfileSeeder.escape("a\rb")).isEqualTo("a\\rb");
	}

	static Stream<Arguments> specialCharacters() {
		return Stream.of(Arguments.of("\t", "\\t"), Arguments.of("\tstart", "\\tstart"),
				Arguments.of("end\n", "end\\n"), Arguments.of("\r\n", "\\r\\n"),
				Arguments.of("x\ty\r\nz\\", "x\\ty\\r\\nz\\\\"), Arguments.of("Иван\tПетров", "Иван\\tПетров"),
				Arguments.of("\uD83D\uDE00\n\uD83D\uDE00", "\uD83D\uDE00\\n\uD83D\uDE00"),
				Arguments.of("a\\tb", "a\\\\tb"), Arguments.of("\n\n", "\\n\\n"));
	}

	@ParameterizedTest
	@MethodSource("specialCharacters")
	void everySpecialCharacterIsEscapedWherever(String value, String escaped) {
		assertThat(ProfileSeeder.escape(value)).isEqualTo(escaped);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "Иван", "Mary-Jane O'Brien", "St. Petersburg (RU)", "50% off, a_b", "\uD83D\uDE00",
			"\u0000\u0001 \u00a0\u2028", "N" })
	void plainStringIsReturnedUnchanged(String value) {
		assertThat(ProfileSeeder.escape(value)).isSameAs(value);
	}

}
