package dev.highload.profiles.auth;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * The body of {@code POST /login}.
 *
 * @param id the user id returned by registration
 * @param password the password
 */
record LoginRequest(@JsonProperty("id") @NotNull UUID id,
		@JsonProperty("password") @NotNull @Size(min = 1, max = 128) String password) {

	@Override
	public String toString() {
		return "LoginRequest[id=" + this.id + ", password=***]";
	}

}
