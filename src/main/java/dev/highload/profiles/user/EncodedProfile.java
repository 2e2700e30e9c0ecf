package dev.highload.profiles.user;

import java.nio.charset.StandardCharsets;

import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A {@link UserProfile} as the database sent it: each field the UTF-8 bytes of
 * PostgreSQL's text form ({@code ResultSet.getBytes} on a text column), {@code null} for
 * SQL NULL. Search pages are made of these and written to JSON without ever becoming
 * {@code String}s: for a page of 100 Cyrillic profiles, decoding every field into UTF-16
 * in the driver and encoding it back into UTF-8 in Jackson was most of the service's own
 * CPU per search (docs/reports/controls.md). The JSON is exactly that of the equivalent
 * {@link UserProfile}, which documents the schema.
 *
 * @param id the id's canonical text
 * @param firstName first name
 * @param secondName last name
 * @param birthdate the date's ISO text
 * @param biography biography, may be null
 * @param city city, may be null
 */
@JsonSerialize(using = UserProfileSerializer.Encoded.class)
record EncodedProfile(byte[] id, byte[] firstName, byte[] secondName, byte[] birthdate, byte[] biography, byte[] city) {

	/**
	 * The id as text, for the link to the next page.
	 * @return the canonical UUID text
	 */
	String idText() {
		return new String(this.id, StandardCharsets.US_ASCII);
	}

	/**
	 * The encoded form of a decoded profile.
	 * @param profile a profile
	 * @return the same profile as UTF-8 bytes
	 */
	static EncodedProfile of(UserProfile profile) {
		return new EncodedProfile(utf8(profile.id()), utf8(profile.firstName()), utf8(profile.secondName()),
				utf8(profile.birthdate()), utf8(profile.biography()), utf8(profile.city()));
	}

	private static byte[] utf8(String text) {
		return (text != null) ? text.getBytes(StandardCharsets.UTF_8) : null;
	}

	@Override
	public String toString() {
		return "EncodedProfile[id=" + idText() + "]";
	}

}
