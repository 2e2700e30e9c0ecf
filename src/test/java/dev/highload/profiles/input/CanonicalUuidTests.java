package dev.highload.profiles.input;

import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-written check says what the documented regular expression says. */
class CanonicalUuidTests {

	private static final Pattern PATTERN = Pattern.compile(CanonicalUuid.PATTERN);

	@Test
	void agreesWithThePatternOnChosenCases() {
		List<String> cases = List.of("018cc251-f400-7e95-a8ef-e333b266f103", "018CC251-F400-7E95-A8EF-E333B266F103",
				"00000000-0000-0000-0000-000000000000", "1-1-1-1-1", "018cc251f4007e95a8efe333b266f103",
				"018cc251-f400-7e95-a8ef-e333b266f10", "018cc251-f400-7e95-a8ef-e333b266f1033",
				"018cc251-f400-7e95-a8ef-e333b266f10g", "018cc251_f400-7e95-a8ef-e333b266f103",
				"{18cc251-f400-7e95-a8ef-e333b266f103", "018cc251-f400-7e95-a8ef-e333b266f10\n", "",
				"０18cc251-f400-7e95-a8ef-e333b266f103");
		for (String text : cases) {
			assertThat(CanonicalUuid.matches(text)).as(text).isEqualTo(PATTERN.matcher(text).matches());
		}
	}

	@Test
	void agreesWithThePatternOnRandomMutationsOfIds() {
		Random random = new Random(42);
		String alphabet = "0123456789abcdefABCDEFgG-_ xz\u0660";
		for (int i = 0; i < 20_000; i++) {
			StringBuilder text = new StringBuilder(UUID.randomUUID().toString());
			int edits = random.nextInt(3);
			for (int e = 0; e < edits; e++) {
				int at = random.nextInt(text.length() + 1);
				switch (random.nextInt(3)) {
					case 0 -> text.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
					case 1 -> {
						if (at < text.length()) {
							text.deleteCharAt(at);
						}
					}
					default -> {
						if (at < text.length()) {
							text.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
						}
					}
				}
			}
			assertThat(CanonicalUuid.matches(text)).as(text.toString()).isEqualTo(PATTERN.matcher(text).matches());
		}
	}

}
