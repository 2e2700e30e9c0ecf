package dev.highload.profiles.user;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class UserProfileSerializerTests {

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void writesEveryAnnotatedPropertyInOrder() {
		UserProfile profile = new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", "Анна", "O'Brien \"Q\"",
				"1990-05-17", "", "Saint-Denis (93)\n");
		String written = this.json.writeValueAsString(profile);
		assertThat(written).isEqualTo("{\"id\":\"018cc251-f400-7e95-a8ef-e333b266f103\",\"first_name\":\"Анна\","
				+ "\"second_name\":\"O'Brien \\\"Q\\\"\",\"birthdate\":\"1990-05-17\",\"biography\":\"\","
				+ "\"city\":\"Saint-Denis (93)\\n\"}");
		// The annotations describe the schema (OpenAPI); the serializer must write the
		// same names, in the order of the record.
		List<String> annotated = Arrays.stream(UserProfile.class.getRecordComponents())
			.map((component) -> component.getAccessor().getAnnotation(JsonProperty.class).value())
			.toList();
		JsonNode tree = this.json.readTree(written);
		assertThat(tree.propertyNames()).containsExactlyElementsOf(annotated);
	}

	@Test
	void anAbsentBiographyOrCityIsLeftOutNotNull() {
		UserProfile profile = new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", "Анна", "Ли", "1990-05-17", null,
				null);
		String expected = "{\"id\":\"018cc251-f400-7e95-a8ef-e333b266f103\",\"first_name\":\"Анна\","
				+ "\"second_name\":\"Ли\",\"birthdate\":\"1990-05-17\"}";
		assertThat(this.json.writeValueAsString(profile)).isEqualTo(expected);
		assertThat(this.json.writeValueAsString(EncodedProfile.of(profile))).isEqualTo(expected);
		assertThat(this.json.writeValueAsString(
				new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", "Анна", "Ли", "1990-05-17", null, "Омск")))
			.doesNotContain("biography", "null")
			.endsWith("\"city\":\"Омск\"}");
	}

	@Test
	void anEncodedProfileIsWrittenExactlyLikeTheDecodedOne() {
		List<String> tricky = List.of("Анна", "O'Brien \"Q\"", "back\\slash", "tab\tnew\nline\r",
				"\u0000\u0001\u001f\u007f", "\u2028\u2029", "emoji \uD83D\uDE00 end", "</script>", "é", "");
		for (String text : tricky) {
			assertSameJson(
					new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", text, text, "1990-05-17", text, text));
		}
		assertSameJson(new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", "A", "B", "1990-05-17", null, null));
		Random random = new Random(42);
		for (int i = 0; i < 2000; i++) {
			assertSameJson(new UserProfile(randomText(random), randomText(random), randomText(random),
					randomText(random), randomText(random), randomText(random)));
		}
	}

	@Test
	void aPageOfEncodedProfilesIsAnArrayLikeAPageOfProfiles() {
		List<UserProfile> page = List.of(new UserProfile("a", "B", "C", "2000-01-01", "x", null),
				new UserProfile("d", "Е", "Ф", "2000-01-02", null, null));
		List<EncodedProfile> encoded = page.stream().map(EncodedProfile::of).toList();
		// Bytes (the fast path, as in a UTF-8 response) and characters (decoded first).
		assertThat(this.json.writeValueAsBytes(encoded)).isEqualTo(this.json.writeValueAsBytes(page));
		assertThat(this.json.writeValueAsString(encoded)).isEqualTo(this.json.writeValueAsString(page));
		assertThat(EncodedProfile.of(page.get(1)).idText()).isEqualTo("d");
	}

	private void assertSameJson(UserProfile profile) {
		byte[] decoded = this.json.writeValueAsBytes(profile);
		byte[] encoded = this.json.writeValueAsBytes(EncodedProfile.of(profile));
		assertThat(new String(encoded, StandardCharsets.UTF_8)).as(profile.toString())
			.isEqualTo(new String(decoded, StandardCharsets.UTF_8));
	}

	/** Any code points a PostgreSQL UTF-8 text can hold: no NUL, no lone surrogates. */
	private static String randomText(Random random) {
		StringBuilder text = new StringBuilder();
		int length = random.nextInt(40);
		while (text.length() < length) {
			int codePoint = switch (random.nextInt(4)) {
				case 0 -> 1 + random.nextInt(0x7f);
				case 1 -> 0x80 + random.nextInt(0x800 - 0x80);
				case 2 -> 0x800 + random.nextInt(0xd800 - 0x800);
				default -> 0x10000 + random.nextInt(0x10ffff - 0x10000);
			};
			text.appendCodePoint(codePoint);
		}
		return text.toString();
	}

	@Test
	void listsAreArraysOfProfiles() {
		String written = this.json.writeValueAsString(List.of(new UserProfile("a", "B", "C", "2000-01-01", "x", null),
				new UserProfile("d", "E", "F", "2000-01-02", null, null)));
		assertThat(this.json.readTree(written).size()).isEqualTo(2);
		assertThat(this.json.readTree(written).get(1).get("second_name").asString()).isEqualTo("F");
	}

}
