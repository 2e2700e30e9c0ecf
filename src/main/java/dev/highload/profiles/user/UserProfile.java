package dev.highload.profiles.user;

import java.time.LocalDate;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A user's public profile: what every read returns. Never carries password material.
 *
 * @param id the user's id
 * @param firstName first name
 * @param secondName last name
 * @param birthdate date of birth
 * @param biography free text, may be null
 * @param city city, may be null
 */
public record UserProfile(@JsonProperty("id") UUID id, @JsonProperty("first_name") String firstName,
		@JsonProperty("second_name") String secondName, @JsonProperty("birthdate") LocalDate birthdate,
		@JsonProperty("biography") String biography, @JsonProperty("city") String city) {

}
