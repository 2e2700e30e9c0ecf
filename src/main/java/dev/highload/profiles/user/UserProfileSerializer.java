package dev.highload.profiles.user;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

/**
 * Writes a {@link UserProfile} field by field. Jackson 3's bean serializer reads each
 * record component through a method handle it cannot inline; for a page of 100 profiles
 * that lookup alone took about a fifth of the service's CPU (JFR, docs/load-testing.md).
 * The names are those of the record's {@code @JsonProperty} annotations, which still
 * describe the schema; {@code UserProfileSerializerTests} holds the two together.
 */
final class UserProfileSerializer extends ValueSerializer<UserProfile> {

	private static final SerializableString ID = new SerializedString("id");

	private static final SerializableString FIRST_NAME = new SerializedString("first_name");

	private static final SerializableString SECOND_NAME = new SerializedString("second_name");

	private static final SerializableString BIRTHDATE = new SerializedString("birthdate");

	private static final SerializableString BIOGRAPHY = new SerializedString("biography");

	private static final SerializableString CITY = new SerializedString("city");

	@Override
	public void serialize(UserProfile profile, JsonGenerator json, SerializationContext context) {
		json.writeStartObject(profile);
		property(json, ID, profile.id());
		property(json, FIRST_NAME, profile.firstName());
		property(json, SECOND_NAME, profile.secondName());
		property(json, BIRTHDATE, profile.birthdate());
		property(json, BIOGRAPHY, profile.biography());
		property(json, CITY, profile.city());
		json.writeEndObject();
	}

	private static void property(JsonGenerator json, SerializableString name, String value) {
		json.writeName(name);
		if (value != null) {
			json.writeString(value);
		}
		else {
			json.writeNull();
		}
	}

}
