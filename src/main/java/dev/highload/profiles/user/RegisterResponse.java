package dev.highload.profiles.user;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * @param userId the new user's id
 */
record RegisterResponse(@JsonProperty("user_id") UUID userId) {

}
