package dev.highload.profiles.auth;

import dev.highload.profiles.consistency.AtLeast;
import dev.highload.profiles.consistency.ConsistentRead;
import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.openapi.ProblemResponses;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.validation.Valid;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /login}: a bearer token for a user id and password. */
@RestController
class LoginController {

	private final LoginService logins;

	private final DeviceCookies devices;

	LoginController(LoginService logins, DeviceCookies devices) {
		this.logins = logins;
		this.devices = devices;
	}

	@Operation(summary = "Log in",
			description = "Unknown ids and wrong passwords get the same 401. After "
					+ "app.auth.throttle.login-failures-per-address failures from one client (default 50) in "
					+ "app.auth.throttle.login-window (default 15 minutes), every login from that client gets 429 "
					+ "until the window ends. After app.auth.throttle.login-failures-per-account-and-address "
					+ "failures for one id from one client (default 10) in the window, that client's further "
					+ "attempts for that id must wait a delay after its last failure (1 s, doubling with each "
					+ "failure, at most 30 s); past app.auth.throttle.login-failures-per-account failures for the "
					+ "id from all clients (default 100), every client does. An attempt inside a delay gets 429 "
					+ "with the seconds left in Retry-After, and counts towards the client's limit. A successful "
					+ "login clears the id's failures. A successful login sets a device cookie (HttpOnly, path /login, "
					+ "30 days): a client that sends it back logs in to that id on its own count, whatever others "
					+ "fail there.")
	@PostMapping("/login")
	@ConsistentRead
	@ProblemResponses({ 400, 401, 413, 415, 429, 503 })
	ResponseEntity<Positioned<LoginResponse>> login(@Valid @RequestBody LoginRequest request,
			@Parameter(hidden = true) LoginClient client, AtLeast atLeast) {
		Positioned<LoginService.LoggedIn> loggedIn = this.logins.login(request, client.address(), client.deviceCookie(),
				atLeast.position());
		return ResponseEntity.ok()
			.header(HttpHeaders.SET_COOKIE,
					this.devices.cookie(loggedIn.value().deviceCookie(), client.secure()).toString())
			.body(loggedIn.map((done) -> new LoginResponse(done.token())));
	}

}
