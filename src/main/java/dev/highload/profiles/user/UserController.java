package dev.highload.profiles.user;

import java.util.List;
import java.util.UUID;

import dev.highload.profiles.auth.TokenService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/** The profile API: register, fetch, search, and the caller's own profile. */
@RestController
class UserController {

	/** Any characters but control characters; none of them is a wildcard. */
	private static final String PREFIX = "\\P{Cc}+";

	private static final String PREFIX_MESSAGE = "must not contain control characters";

	private final UserService users;

	private final TokenService tokens;

	UserController(UserService users, TokenService tokens) {
		this.users = users;
		this.tokens = tokens;
	}

	@Operation(summary = "Register a user", description = "Returns the new user's id.")
	@PostMapping("/user/register")
	RegisterResponse register(@Valid @RequestBody RegisterRequest request) {
		return new RegisterResponse(this.users.register(request));
	}

	@Operation(summary = "Get a profile by id")
	@GetMapping("/user/{id}")
	UserProfile get(@PathVariable UUID id) {
		return this.users.get(id);
	}

	@Operation(summary = "Get a profile by id (path of the OTUS API)")
	@GetMapping("/user/get/{id}")
	UserProfile getByOtusPath(@PathVariable UUID id) {
		return this.users.get(id);
	}

	@Operation(summary = "Search by name prefixes",
			description = "Users whose first name starts with first_name and last name starts with last_name "
					+ "(case-sensitive, no wildcards), ordered by id. When a page is full, a Link header "
					+ "with rel=\"next\" gives the next page.")
	@GetMapping("/user/search")
	@ApiResponse(responseCode = "200", description = "One page of profiles, ordered by id",
			content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
					array = @ArraySchema(schema = @Schema(implementation = UserProfile.class))))
	ResponseEntity<List<EncodedProfile>> search(
			@RequestParam("first_name") @Size(min = 1, max = 100) @Pattern(regexp = PREFIX,
					message = PREFIX_MESSAGE) String firstName,
			@RequestParam("last_name") @Size(min = 1, max = 100) @Pattern(regexp = PREFIX,
					message = PREFIX_MESSAGE) String lastName,
			@Parameter(description = "page size") @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit,
			@Parameter(
					description = "return users whose id is greater than this (the last id of the previous page)") @RequestParam(
							required = false) UUID after) {
		List<EncodedProfile> page = this.users.search(new SearchQuery(firstName, lastName, after, limit));
		ResponseEntity.BodyBuilder response = ResponseEntity.ok();
		if (page.size() == limit) {
			String next = ServletUriComponentsBuilder.fromCurrentRequest()
				.replaceQueryParam("after", page.get(page.size() - 1).idText())
				.build()
				.toUriString();
			response.header(HttpHeaders.LINK, "<" + next + ">; rel=\"next\"");
		}
		return response.body(page);
	}

	@Operation(summary = "The caller's own profile", description = "Needs Authorization: Bearer <token from /login>.")
	@GetMapping("/user/me")
	UserProfile me(@RequestHeader(name = HttpHeaders.AUTHORIZATION, required = false) String authorization) {
		return this.users.get(this.tokens.authenticate(authorization));
	}

}
