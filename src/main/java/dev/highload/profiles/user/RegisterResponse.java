package dev.highload.profiles.user;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * @param userId the new user's id
 */
record RegisterResponse(
		@JsonProperty("user_id") @Schema(requiredMode = Schema.RequiredMode.REQUIRED, format = "uuid") UUID userId) {

}
