package dev.highload.profiles.user;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.highload.profiles.input.InvalidParameterException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Idempotency-Key header: a Structured Field string or a bare value, 1 to 255
 * printable ASCII characters, once.
 */
class IdempotencyKeyTests {

	@Test
	void aQuotedValueIsAStructuredFieldStringAndABareOneIsTakenAsItIs() {
		Map<String, String> keys = new TreeMap<>();
		for (String field : new String[] { "\"abc\"", "abc", " \"abc\"\t", "\t abc  ", "\"a b\"", "a b",
				"\"a\\\"b\\\\c\"", "a\"b\\c", "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "\"'~!#\"", "\" x \"" }) {
			keys.put(field, IdempotencyKey.parse(field).value());
		}
		assertThat(keys)
			.containsExactlyInAnyOrderEntriesOf(Map.ofEntries(Map.entry("\"abc\"", "abc"), Map.entry("abc", "abc"),
					Map.entry(" \"abc\"\t", "abc"), Map.entry("\t abc  ", "abc"), Map.entry("\"a b\"", "a b"),
					Map.entry("a b", "a b"), Map.entry("\"a\\\"b\\\\c\"", "a\"b\\c"), Map.entry("a\"b\\c", "a\"b\\c"),
					Map.entry("\"8e03978e-40d5-43e8-bc93-6894a57f9324\"", "8e03978e-40d5-43e8-bc93-6894a57f9324"),
					Map.entry("\"'~!#\"", "'~!#"), Map.entry("\" x \"", " x ")));
	}

	@Test
	void aKeyHasOneTo255Characters() {
		String longest = "k".repeat(255);
		assertThat(IdempotencyKey.parse(longest).value()).isEqualTo(longest);
		assertThat(IdempotencyKey.parse("\"" + longest + "\"").value()).isEqualTo(longest);
		// 255 characters of key, 510 of escapes in the header: the key counts.
		String escaped = "\"" + "\\\"".repeat(255) + "\"";
		assertThat(IdempotencyKey.parse(escaped).value()).isEqualTo("\"".repeat(255));
		assertThat(escaped).hasSize(IdempotencyKey.HEADER_MAX_LENGTH);
		assertThat(IdempotencyKey.parse("x").value()).isEqualTo("x");

		assertThat(rejection(longest + "k")).isEqualTo("must be at most 255 characters");
		assertThat(rejection("\"" + longest + "k\"")).isEqualTo("must be at most 255 characters");
		for (String empty : new String[] { "", " ", "\t", "\"\"", " \"\" " }) {
			assertThat(rejection(empty)).as("'%s'", empty).isEqualTo("must not be empty");
		}
	}

	@Test
	void controlCharactersAndNonAsciiAreRejected() {
		Map<String, String> outcomes = new TreeMap<>();
		Map<String, String> expected = new TreeMap<>();
		// Tomcat reads header bytes as ISO-8859-1: UTF-8 "é" arrives as "Ã©".
		for (String field : new String[] { "a\u0000b", "a\u0001b", "a\tb", "a\u007Fb", "a\u0085b", "é", "Ã©", "ключ",
				"\"a\u0001b\"", "\"a\tb\"", "\"é\"", "\"a\u007F\"", "a\nb", "\"a\rb\"", "\uD83D\uDE00" }) {
			outcomes.put(field, rejection(field));
			expected.put(field, "must be printable ASCII characters (U+0020 to U+007E)");
		}
		assertThat(outcomes).isEqualTo(expected);
	}

	@Test
	void aQuotedValueMustBeOneWellFormedString() {
		Map<String, String> outcomes = new TreeMap<>();
		for (String field : new String[] { "\"abc", "\"", "\"abc\\\"", "\"a\\bc\"", "\"abc\\", "\"abc\";p=1",
				"\"abc\" \"def\"", "\"abc\", \"def\"", "\"abc\"x" }) {
			outcomes.put(field, rejection(field));
		}
		assertThat(outcomes)
			.containsExactlyInAnyOrderEntriesOf(Map.of("\"abc", "must be a string: the closing quote is missing", "\"",
					"must be a string: the closing quote is missing", "\"abc\\\"",
					"must be a string: the closing quote is missing", "\"a\\bc\"",
					"must be a string: only \\\" and \\\\ may be escaped", "\"abc\\",
					"must be a string: only \\\" and \\\\ may be escaped", "\"abc\";p=1",
					"must be one string, without anything after its closing quote", "\"abc\" \"def\"",
					"must be one string, without anything after its closing quote", "\"abc\", \"def\"",
					"must be one string, without anything after its closing quote", "\"abc\"x",
					"must be one string, without anything after its closing quote"));
	}

	@Test
	void theHeaderIsSentOnceOrTheServerMakesAKey() {
		assertThat(IdempotencyKey.of(Collections.enumeration(List.of("\"mine\""))).value()).isEqualTo("mine");
		assertThatExceptionOfType(InvalidParameterException.class)
			.isThrownBy(() -> IdempotencyKey.of(Collections.enumeration(List.of("\"mine\"", "\"mine\""))))
			.satisfies((ex) -> assertThat(ex.getBody().getProperties().get("errors").toString())
				.contains("Idempotency-Key", "must be given once"));
		String made = IdempotencyKey.of(Collections.emptyEnumeration()).value();
		assertThat(UUID.fromString(made).toString()).isEqualTo(made);
		assertThat(IdempotencyKey.of(null).value()).isNotEqualTo(made);
	}

	@Test
	void theKeyIsWrittenBackAsAStructuredFieldStringThatParsesToItself() {
		for (String key : new String[] { "abc", "a\"b\\c", " x ", "\"" }) {
			IdempotencyKey parsed = IdempotencyKey.parse(new IdempotencyKey(key).headerValue());
			assertThat(parsed.value()).as(key).isEqualTo(key);
		}
		assertThat(new IdempotencyKey("a\"b\\c").headerValue()).isEqualTo("\"a\\\"b\\\\c\"");
	}

	@Test
	void anUnfinishedRegistrationNamesTheKeyToRetryWithAsItIsSent() {
		UnfinishedRegistrationException unfinished = new UnfinishedRegistrationException(new IdempotencyKey("k\"1"),
				new IllegalStateException("stand-in for a database failure"));
		assertThat(unfinished.key()).isEqualTo("k\"1");
		assertThat(unfinished.keyField()).isEqualTo("Idempotency-Key: \"k\\\"1\"");
	}

	/** The message of the 400 for a header value, naming the header. */
	private static String rejection(String field) {
		try {
			IdempotencyKey key = IdempotencyKey.parse(field);
			return "accepted as " + key.value();
		}
		catch (InvalidParameterException ex) {
			@SuppressWarnings("unchecked")
			Map<String, String> error = ((List<Map<String, String>>) ex.getBody().getProperties().get("errors")).get(0);
			assertThat(error.get("field")).isEqualTo("Idempotency-Key");
			assertThat(ex.getStatusCode().value()).isEqualTo(400);
			return error.get("message");
		}
	}

}
