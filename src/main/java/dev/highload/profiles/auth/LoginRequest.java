package dev.highload.profiles.auth;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.highload.profiles.input.CanonicalUuid;
import dev.highload.profiles.input.CodePointLength;
import dev.highload.profiles.input.StorableText;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;

/**
 * The body of {@code POST /login}.
 *
 * @param id the user id returned by registration
 * @param password the password
 */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
record LoginRequest(@JsonProperty("id") @NotNull @Schema(format = "uuid", pattern = CanonicalUuid.PATTERN) UUID id,
		@JsonProperty("password") @NotNull @CodePointLength(min = 1,
				max = 128) @Schema(pattern = StorableText.PATTERN) String password) {

	@Override
	public String toString() {
		return "LoginRequest[id=" + this.id + ", password=***]";
	}

}
