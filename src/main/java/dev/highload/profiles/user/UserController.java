package dev.highload.profiles.user;

import java.util.List;
import java.util.UUID;

import dev.highload.profiles.auth.HashingOverloadedException;
import dev.highload.profiles.auth.RegistrationThrottle;
import dev.highload.profiles.auth.TokenService;
import dev.highload.profiles.database.DatabaseFailureException;
import dev.highload.profiles.consistency.AtLeast;
import dev.highload.profiles.consistency.ConsistentRead;
import dev.highload.profiles.consistency.Written;
import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.input.CanonicalUuid;
import dev.highload.profiles.input.CodePointLength;
import dev.highload.profiles.input.InvalidParameterException;
import dev.highload.profiles.openapi.ProblemResponses;
import dev.highload.profiles.arguments.RemoteAddress;
import dev.highload.profiles.arguments.SentParameters;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;

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

	/**
	 * Any characters but control characters (Unicode category Cc: U+0000 to U+001F and
	 * U+007F to U+009F); none of them is a wildcard. Spelled as a range, not as
	 * {@code \P{Cc}}, so that the OpenAPI document's pattern means the same to every
	 * reader of it.
	 */
	private static final String PREFIX = "^[^\\x00-\\x1F\\x7F-\\x9F]+$";

	private static final List<String> EMPTY_NOT_ALLOWED = List.of("limit", "after");

	/**
	 * The id segment of {@code /user/{id}}: anything but the names of the paths beside
	 * it. A bare {@code {id}} also matches {@code /user/register}; Spring MVC answers
	 * that path's OPTIONS and 405 with the methods of every mapping whose pattern matches
	 * it, so {@code Allow} named GET, which is not served there (GET /user/register was a
	 * 400 for a malformed id). Any other segment is still an id, a malformed one answered
	 * 400, as the OTUS API wants for {@code /user/get/{id}}.
	 */
	static final String ID_SEGMENT = "{id:(?!(?:register|search|me)$).+}";

	private static final String PREFIX_MESSAGE = "must not contain control characters";

	private final UserService users;

	private final TokenService tokens;

	private final Registrations registrations;

	private final RegistrationThrottle registrationThrottle;

	UserController(UserService users, TokenService tokens, Registrations registrations,
			RegistrationThrottle registrationThrottle) {
		this.users = users;
		this.tokens = tokens;
		this.registrations = registrations;
		this.registrationThrottle = registrationThrottle;
	}

	@Operation(summary = "Register a user",
			description = "Returns the new user's id. Each client address may register "
					+ "app.auth.throttle.registrations-per-address users per app.auth.throttle.registration-window "
					+ "(default 20 per hour); beyond that 429. With an Idempotency-Key, the registration happens at "
					+ "most once: a retry with the key and the same body and password answers the same user_id "
					+ "(200), while the first request is still in progress 409, and with another body or password "
					+ "422. Keys expire app.registration.idempotency-key-ttl (default 24 hours) after the "
					+ "registration; after that the key registers anew. Every 503 names the key to retry with "
					+ "(idempotency_key), one the server made if the request had none; after 503 \"Outcome "
					+ "unknown\" only such a retry tells whether the user exists.")
	@Parameter(in = ParameterIn.HEADER, name = IdempotencyKey.HEADER,
			description = "A key of 1 to 255 printable ASCII characters that identifies this registration, "
					+ "as a Structured Field string (\"...\", draft-ietf-httpapi-idempotency-key-header-07) or "
					+ "bare; a random UUID is a good one. Sent once; otherwise 400.",
			schema = @Schema(type = "string", minLength = 1, maxLength = IdempotencyKey.HEADER_MAX_LENGTH,
					pattern = IdempotencyKey.HEADER_PATTERN),
			example = "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"")
	@PostMapping("/user/register")
	@ConsistentRead(write = true)
	@ProblemResponses({ 400, 409, 413, 415, 422, 429, 503 })
	Written<RegisterResponse> register(@Valid @RequestBody RegisterRequest request,
			@Parameter(hidden = true) IdempotencyKey key, @RemoteAddress String address) {
		this.registrationThrottle.acquire(address);
		UUID id;
		try {
			id = this.registrations.register(request, key, address);
		}
		catch (DatabaseFailureException | HashingOverloadedException ex) {
			throw new UnfinishedRegistrationException(key, ex);
		}
		return new Written<>(new RegisterResponse(id), this.users.positionAfterWrite());
	}

	@Operation(operationId = "get", summary = "Get a profile by id", description = "Also at /user/{id}.")
	@GetMapping("/user/get/{id}")
	@ConsistentRead
	@ProblemResponses({ 400, 404, 503 })
	Positioned<UserProfile> get(@PathVariable @Parameter(description = "a user id",
			schema = @Schema(format = "uuid", pattern = CanonicalUuid.PATTERN)) UUID id, AtLeast atLeast) {
		return this.users.get(id, atLeast.position());
	}

	/*
	 * The same read as get, a handler of its own: a mapping with one path is found with
	 * less work than one with two (docs/architecture.md, "The request path").
	 */
	@Operation(operationId = "get_1", summary = "Get a profile by id",
			description = "Also at /user/get/{id}, the path of the OTUS Highload Architect API.")
	@GetMapping("/user/" + ID_SEGMENT)
	@ConsistentRead
	@ProblemResponses({ 400, 404, 503 })
	Positioned<UserProfile> getById(@PathVariable @Parameter(description = "a user id",
			schema = @Schema(format = "uuid", pattern = CanonicalUuid.PATTERN)) UUID id, AtLeast atLeast) {
		return this.users.get(id, atLeast.position());
	}

	@Operation(summary = "Search by name prefixes",
			description = "Users whose first name starts with first_name and last name starts with last_name "
					+ "(case-sensitive, no wildcards), ordered by id. When a page is full, a Link header "
					+ "with rel=\"next\" gives the next page.")
	@GetMapping("/user/search")
	@ConsistentRead
	@ApiResponse(responseCode = "200", description = "One page of profiles, ordered by id",
			headers = @Header(name = HttpHeaders.LINK,
					description = "When the page is full: <URL of the next page>; rel=\"next\"",
					schema = @Schema(type = "string", pattern = "^<[^>]+>; rel=\"next\"$")),
			content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
					array = @ArraySchema(schema = @Schema(implementation = UserProfile.class))))
	@ProblemResponses({ 400, 503 })
	ResponseEntity<Positioned<List<EncodedProfile>>> search(
			@RequestParam("first_name") @CodePointLength(min = 1, max = 100) @Pattern(regexp = PREFIX,
					message = PREFIX_MESSAGE) String firstName,
			@RequestParam("last_name") @CodePointLength(min = 1, max = 100) @Pattern(regexp = PREFIX,
					message = PREFIX_MESSAGE) String lastName,
			@Parameter(description = "page size") @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit,
			@Parameter(description = "return users whose id is greater than this (the last id of the previous page)",
					schema = @Schema(format = "uuid", pattern = CanonicalUuid.PATTERN)) @RequestParam(
							required = false) UUID after,
			SentParameters sent, AtLeast atLeast) {
		// Binding reads "limit=" as the default and "after=" as absent; an empty value is
		// a client's mistake, not a request for the first page of 100.
		for (String name : EMPTY_NOT_ALLOWED) {
			if ("".equals(sent.get(name))) {
				throw new InvalidParameterException(name, "must not be empty");
			}
		}
		Positioned<List<EncodedProfile>> found = this.users.search(new SearchQuery(firstName, lastName, after, limit),
				atLeast.position());
		List<EncodedProfile> page = found.value();
		ResponseEntity.BodyBuilder response = ResponseEntity.ok();
		if (page.size() == limit) {
			String next = ServletUriComponentsBuilder.fromCurrentRequest()
				.replaceQueryParam("after", page.get(page.size() - 1).idText())
				.build()
				.toUriString();
			response.header(HttpHeaders.LINK, "<" + next + ">; rel=\"next\"");
		}
		return response.body(found);
	}

	@Operation(summary = "The caller's own profile", description = "Needs Authorization: Bearer <token from /login>.",
			security = @SecurityRequirement(name = ProblemResponses.BEARER_SCHEME))
	@GetMapping("/user/me")
	@ConsistentRead
	@ProblemResponses({ 400, 401, 404, 503 })
	Positioned<UserProfile> me(@Parameter(hidden = true) @RequestHeader(name = HttpHeaders.AUTHORIZATION,
			required = false) String authorization, AtLeast atLeast) {
		return this.users.get(this.tokens.authenticate(authorization), atLeast.position());
	}

}
