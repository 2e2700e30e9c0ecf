package dev.highload.profiles.user;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class PrefixRangeTests {

	private static final String MAX = new String(Character.toChars(Character.MAX_CODE_POINT));

	private static final String GRINNING = new String(Character.toChars(0x1F600));

	/**
	 * Tails appended to a prefix: the smallest and largest code points, both sides of the
	 * surrogate gap, the last BMP character (which sorts after supplementary characters
	 * in UTF-16 but before them in code-point order), and ordinary letters.
	 */
	private static final List<String> TAILS = List.of("", "\u0000", "a", "z", "~", "Иван", "ан", "\uD7FF", "\uE000",
			"\uFFFF", "\uFFFF\uFFFF", GRINNING, MAX, MAX + MAX + MAX, "%", "_", "\\", " ", "-");

	@Test
	void asciiPrefixEndsBeforeTheNextCharacter() {
		assertThat(PrefixRange.of("Iv")).contains(new PrefixRange("Iv", "Iw"));
		assertThat(PrefixRange.of("a")).contains(new PrefixRange("a", "b"));
		assertThat(PrefixRange.of("Z")).contains(new PrefixRange("Z", "["));
	}

	@Test
	void cyrillicPrefixEndsBeforeTheNextLetter() {
		assertThat(PrefixRange.of("Ив")).contains(new PrefixRange("Ив", "Иг"));
		assertThat(PrefixRange.of("Я")).contains(new PrefixRange("Я", "а"));
		assertThat(PrefixRange.of("Петро")).contains(new PrefixRange("Петро", "Петрп"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "I", "Iv", "Ив", "Петров", "50%", "a_b", "a\\", "%", "_", "\\", "a\uD7FF", "a\uFFFF",
			"a\uD83D\uDE00", "\uD83D\uDE00", "ab\uDBFF\uDFFF", "\uD7FF\uDBFF\uDFFF", "\uDBFF\uDFFFa", "\u0000" })
	void everyStringWithThePrefixIsInTheRange(String prefix) {
		PrefixRange range = PrefixRange.of(prefix).orElseThrow();
		assertThat(range.from()).isEqualTo(prefix);
		assertThat(compare(range.to(), prefix)).isGreaterThan(0);
		for (String tail : TAILS) {
			assertThat(contains(range, prefix + tail)).as("%s is in the range of %s", escaped(prefix + tail), prefix)
				.isTrue();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "I", "Iv", "Ив", "Петров", "50%", "a_b", "a\\", "%", "_", "\\", "a\uD7FF", "a\uFFFF",
			"a\uD83D\uDE00", "\uD83D\uDE00", "ab\uDBFF\uDFFF", "\uD7FF\uDBFF\uDFFF", "\uDBFF\uDFFFa" })
	void neighboursWithoutThePrefixAreOutsideTheRange(String prefix) {
		PrefixRange range = PrefixRange.of(prefix).orElseThrow();
		for (String neighbour : neighbours(prefix)) {
			if (!neighbour.startsWith(prefix)) {
				assertThat(contains(range, neighbour)).as("%s is outside the range of %s", escaped(neighbour), prefix)
					.isFalse();
			}
		}
	}

	@Test
	void toIsTheSmallestStringAfterThePrefixedOnes() {
		PrefixRange range = PrefixRange.of("Ив").orElseThrow();
		assertThat(contains(range, "Иг")).isFalse();
		assertThat(contains(range, "Ив" + MAX + MAX)).isTrue();
		assertThat(contains(range, "Ив")).isTrue();
		assertThat(contains(range, "Иб" + MAX)).isFalse();
		assertThat(contains(range, "И")).isFalse();
		assertThat(contains(range, "ив")).isFalse();
		assertThat(contains(range, "Iv")).isFalse();
	}

	@Test
	void percentUnderscoreAndBackslashAreOrdinaryCharacters() {
		assertThat(PrefixRange.of("50%")).contains(new PrefixRange("50%", "50&"));
		assertThat(PrefixRange.of("a_")).contains(new PrefixRange("a_", "a`"));
		assertThat(PrefixRange.of("a\\")).contains(new PrefixRange("a\\", "a]"));
		PrefixRange percent = PrefixRange.of("50%").orElseThrow();
		assertThat(contains(percent, "50% off")).isTrue();
		assertThat(contains(percent, "500")).isFalse();
		assertThat(contains(percent, "50x")).isFalse();
		PrefixRange underscore = PrefixRange.of("a_c").orElseThrow();
		assertThat(contains(underscore, "a_cat")).isTrue();
		assertThat(contains(underscore, "abc")).isFalse();
		PrefixRange backslash = PrefixRange.of("a\\").orElseThrow();
		assertThat(contains(backslash, "a\\%")).isTrue();
		assertThat(contains(backslash, "a%")).isFalse();
		assertThat(contains(backslash, "a")).isFalse();
	}

	@Test
	void lastCodePointBeforeTheSurrogatesStepsOverThem() {
		assertThat(PrefixRange.of("a\uD7FF")).contains(new PrefixRange("a\uD7FF", "a\uE000"));
		assertThat(PrefixRange.of("\uD7FF")).contains(new PrefixRange("\uD7FF", "\uE000"));
	}

	@Test
	void lastBmpCharacterStepsToTheFirstSupplementaryOne() {
		String firstSupplementary = new String(Character.toChars(0x10000));
		PrefixRange range = PrefixRange.of("a\uFFFF").orElseThrow();
		assertThat(range.to()).isEqualTo("a" + firstSupplementary);
		// UTF-16 order would put this before the prefix's end; code-point order does not
		assertThat(contains(range, "a\uFFFF" + GRINNING)).isTrue();
		assertThat(contains(range, "a" + GRINNING)).isFalse();
	}

	@Test
	void supplementaryCharacterStepsToTheNextCodePoint() {
		String grinningWithBigEyes = new String(Character.toChars(0x1F601));
		assertThat(PrefixRange.of(GRINNING)).contains(new PrefixRange(GRINNING, grinningWithBigEyes));
		assertThat(PrefixRange.of("Hi " + GRINNING))
			.contains(new PrefixRange("Hi " + GRINNING, "Hi " + grinningWithBigEyes));
		assertThat(PrefixRange.of(GRINNING + "a")).contains(new PrefixRange(GRINNING + "a", GRINNING + "b"));
	}

	@Test
	void maximumCodePointCarriesIntoThePreviousOne() {
		assertThat(PrefixRange.of("ab" + MAX)).contains(new PrefixRange("ab" + MAX, "ac"));
		assertThat(PrefixRange.of("a" + MAX + MAX)).contains(new PrefixRange("a" + MAX + MAX, "b"));
		assertThat(PrefixRange.of(GRINNING + MAX))
			.contains(new PrefixRange(GRINNING + MAX, new String(Character.toChars(0x1F601))));
		assertThat(PrefixRange.of("\uD7FF" + MAX)).contains(new PrefixRange("\uD7FF" + MAX, "\uE000"));
	}

	@Test
	void prefixOfOnlyTheMaximumCodePointHasNoRange() {
		assertThat(PrefixRange.of(MAX)).isEmpty();
		assertThat(PrefixRange.of(MAX + MAX + MAX)).isEmpty();
	}

	@Test
	void rangeOfAPrefixWithAnotherCodePointBeforeTheMaximumIsPresent() {
		Optional<PrefixRange> range = PrefixRange.of("\u0000" + MAX);
		assertThat(range).contains(new PrefixRange("\u0000" + MAX, "\u0001"));
	}

	/**
	 * Strings near the prefix: shorter, with one code point changed by one (skipping the
	 * surrogates), and those followed by tails.
	 */
	private static List<String> neighbours(String prefix) {
		int[] codePoints = prefix.codePoints().toArray();
		List<String> neighbours = new ArrayList<>();
		neighbours.add("");
		neighbours.add(new String(codePoints, 0, codePoints.length - 1));
		for (int i = 0; i < codePoints.length; i++) {
			for (int delta : new int[] { -1, 1 }) {
				int[] changed = codePoints.clone();
				changed[i] = step(changed[i], delta);
				if (changed[i] >= 0 && changed[i] <= Character.MAX_CODE_POINT) {
					String head = new String(changed, 0, changed.length);
					for (String tail : TAILS) {
						neighbours.add(head + tail);
					}
					neighbours.add(new String(changed, 0, i + 1));
				}
			}
		}
		return neighbours;
	}

	private static int step(int codePoint, int delta) {
		int next = codePoint + delta;
		if (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) {
			return (delta > 0) ? Character.MAX_SURROGATE + 1 : Character.MIN_SURROGATE - 1;
		}
		return next;
	}

	private static boolean contains(PrefixRange range, String value) {
		return compare(value, range.from()) >= 0 && compare(value, range.to()) < 0;
	}

	/**
	 * Code-point order, as PostgreSQL's "C" collation compares UTF-8. Not
	 * {@link String#compareTo}, which compares UTF-16 units and puts U+E000..U+FFFF after
	 * the supplementary characters.
	 */
	private static int compare(String a, String b) {
		return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
	}

	private static String escaped(String value) {
		StringBuilder result = new StringBuilder();
		value.codePoints()
			.forEach((cp) -> result
				.append((cp < 0x80 && cp >= 0x20) ? Character.toString(cp) : "\\u{" + Integer.toHexString(cp) + "}"));
		return result.toString();
	}

}
