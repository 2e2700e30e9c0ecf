package dev.highload.profiles.auth;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * @param token a bearer token for {@code Authorization: Bearer <token>}
 */
record LoginResponse(@JsonProperty("token") @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String token) {

}
