package dev.highload.profiles.user;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A user's public profile: what every read returns. Never carries password material. The
 * id and the birthdate are the database's canonical text for them, passed through as they
 * are (see {@link ProfileQueries}).
 *
 * @param id the user's id, a UUID
 * @param firstName first name
 * @param secondName last name
 * @param birthdate date of birth, ISO 8601 ({@code yyyy-MM-dd})
 * @param biography free text, may be null: then absent from the JSON
 * @param city city, may be null: then absent from the JSON
 */
@JsonSerialize(using = UserProfileSerializer.class)
@Schema(requiredProperties = { "id", "first_name", "second_name", "birthdate" })
record UserProfile(@JsonProperty("id") @Schema(format = "uuid") String id, @JsonProperty("first_name") String firstName,
		@JsonProperty("second_name") String secondName,
		@JsonProperty("birthdate") @Schema(format = "date") String birthdate,
		@JsonProperty("biography") @Schema(description = "absent when the user gave none") String biography,
		@JsonProperty("city") @Schema(description = "absent when the user gave none") String city) {

}
