package dev.highload.profiles.user;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.highload.profiles.input.CodePointLength;
import dev.highload.profiles.input.StorableText;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Past;
import jakarta.validation.constraints.Pattern;

/**
 * The body of {@code POST /user/register}. Unknown fields are rejected by the JSON
 * reader, so nothing else can be assigned.
 *
 * @param firstName letters of any script, with single spaces, hyphens or apostrophes
 * @param secondName same rules as the first name
 * @param birthdate in the past, not before 1900-01-01
 * @param biography optional free text
 * @param city optional
 * @param password 8 to 128 characters
 */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
record RegisterRequest(
		@JsonProperty("first_name") @NotNull @CodePointLength(min = 1, max = 100) @Pattern(regexp = NAME,
				message = NAME_MESSAGE) String firstName,
		@JsonProperty("second_name") @NotNull @CodePointLength(min = 1, max = 100) @Pattern(regexp = NAME,
				message = NAME_MESSAGE) String secondName,
		@JsonProperty("birthdate") @NotNull @Past @NotBefore("1900-01-01") @Schema(format = "date",
				description = "yyyy-MM-dd, in the past and not before 1900-01-01") LocalDate birthdate,
		@JsonProperty("biography") @CodePointLength(max = 2000) @Schema(types = {
				"string", "null" }, pattern = StorableText.PATTERN) String biography,
		@JsonProperty("city") @CodePointLength(max = 100) @Pattern(regexp = CITY,
				message = CITY_MESSAGE) @Schema(types = { "string", "null" }) String city,
		@JsonProperty("password") @NotNull @CodePointLength(min = 8,
				max = 128) @Schema(pattern = StorableText.PATTERN) String password){

	/**
	 * {@link Names#NAME_PATTERN}, anchored: the validator matches whole strings, and so
	 * must a reader of the OpenAPI document, where an unanchored one matches a part.
	 */
	static final String NAME = "^" + Names.NAME_PATTERN + "$";

	static final String NAME_MESSAGE = "must be letters, optionally joined by single spaces, hyphens or apostrophes";

	/**
	 * Like a name, plus digits, dots and parentheses, as in "Saint-Denis (93)".
	 */
	static final String CITY = "^[\\p{L}\\p{M}\\p{N}]+(?:[ '’.(),-]{1,2}[\\p{L}\\p{M}\\p{N}]+)*[.)]?$";

	static final String CITY_MESSAGE = "must be letters or digits, optionally joined by spaces and punctuation";

	/**
	 * SHA-256 of every field but the password, each as its UTF-8 bytes after their length
	 * (-1 for null), after a label naming the operation: two requests have the same
	 * fingerprint exactly when they differ at most in the password. The password is left
	 * out because the fingerprint is stored beside the key, and a fast hash of a password
	 * in a table can be cracked offline; a retry's password is checked against the user's
	 * Argon2id hash instead.
	 * @return 32 bytes
	 */
	byte[] fingerprint() {
		ByteArrayOutputStream canonical = new ByteArrayOutputStream(256);
		for (String field : new String[] { "POST /user/register", this.firstName, this.secondName,
				(this.birthdate != null) ? this.birthdate.toString() : null, this.biography, this.city }) {
			byte[] bytes = (field != null) ? field.getBytes(StandardCharsets.UTF_8) : new byte[0];
			canonical.writeBytes(ByteBuffer.allocate(4).putInt((field != null) ? bytes.length : -1).array());
			canonical.writeBytes(bytes);
		}
		try {
			return MessageDigest.getInstance("SHA-256").digest(canonical.toByteArray());
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

	@Override
	public String toString() {
		return "RegisterRequest[firstName=" + this.firstName + ", secondName=" + this.secondName + ", password=***]";
	}

}
