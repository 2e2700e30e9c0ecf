package dev.highload.profiles.auth;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * @param token a bearer token for {@code Authorization: Bearer <token>}
 */
record LoginResponse(@JsonProperty("token") String token) {

}
