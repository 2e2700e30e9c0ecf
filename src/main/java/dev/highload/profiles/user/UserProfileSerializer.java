package dev.highload.profiles.user;

import java.nio.charset.StandardCharsets;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.UTF8JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;

/**
 * Writes a {@link UserProfile} field by field, and ({@link Encoded}) an
 * {@link EncodedProfile} the same way from its bytes. Jackson 3's bean serializer reads
 * each record component through a method handle it cannot inline; for a page of 100
 * profiles that lookup alone took about a fifth of the service's CPU (JFR,
 * docs/reports/controls.md). The names are those of the record's {@code @JsonProperty}
 * annotations, which still describe the schema; {@code UserProfileSerializerTests} holds
 * the two together.
 * <p>
 * An absent optional field (biography, city) is left out, not written as {@code null}:
 * the OTUS Highload Architect API, whose clients this service serves, types them as
 * strings, and clients generated from it refuse a {@code null} (docs/api.md).
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
		if (value != null) {
			json.writeName(name);
			json.writeString(value);
		}
	}

	/**
	 * Writes an {@link EncodedProfile} as the same JSON as its {@link UserProfile}. A
	 * generator that writes UTF-8 bytes (every response in UTF-8, Spring's default)
	 * escapes the bytes as it copies them, with no decoding.
	 */
	static final class Encoded extends ValueSerializer<EncodedProfile> {

		@Override
		public void serialize(EncodedProfile profile, JsonGenerator json, SerializationContext context) {
			json.writeStartObject(profile);
			property(json, ID, profile.id());
			property(json, FIRST_NAME, profile.firstName());
			property(json, SECOND_NAME, profile.secondName());
			property(json, BIRTHDATE, profile.birthdate());
			property(json, BIOGRAPHY, profile.biography());
			property(json, CITY, profile.city());
			json.writeEndObject();
		}

		private static void property(JsonGenerator json, SerializableString name, byte[] utf8) {
			if (utf8 == null) {
				return;
			}
			json.writeName(name);
			if (json instanceof UTF8JsonGenerator) {
				json.writeUTF8String(utf8, 0, utf8.length);
			}
			else {
				// A generator over characters (a Writer, e.g. a response in another
				// charset) cannot take bytes.
				json.writeString(new String(utf8, StandardCharsets.UTF_8));
			}
		}

	}

}
