package dev.highload.profiles.user;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class UserProfileSerializerTests {

	private final JsonMapper json = JsonMapper.builder().build();

	@Test
	void writesEveryAnnotatedPropertyInOrderWithNulls() {
		UserProfile profile = new UserProfile("018cc251-f400-7e95-a8ef-e333b266f103", "Анна", "O'Brien \"Q\"",
				"1990-05-17", null, "Saint-Denis (93)\n");
		String written = this.json.writeValueAsString(profile);
		assertThat(written).isEqualTo("{\"id\":\"018cc251-f400-7e95-a8ef-e333b266f103\",\"first_name\":\"Анна\","
				+ "\"second_name\":\"O'Brien \\\"Q\\\"\",\"birthdate\":\"1990-05-17\",\"biography\":null,"
				+ "\"city\":\"Saint-Denis (93)\\n\"}");
		// The annotations describe the schema (OpenAPI); the serializer must write the
		// same
		// names, in the order of the record.
		List<String> annotated = Arrays.stream(UserProfile.class.getRecordComponents())
			.map((component) -> component.getAccessor().getAnnotation(JsonProperty.class).value())
			.toList();
		JsonNode tree = this.json.readTree(written);
		assertThat(tree.propertyNames()).containsExactlyElementsOf(annotated);
	}

	@Test
	void listsAreArraysOfProfiles() {
		String written = this.json.writeValueAsString(List.of(new UserProfile("a", "B", "C", "2000-01-01", "x", null),
				new UserProfile("d", "E", "F", "2000-01-02", null, null)));
		assertThat(this.json.readTree(written).size()).isEqualTo(2);
		assertThat(this.json.readTree(written).get(1).get("second_name").asString()).isEqualTo("F");
	}

}
