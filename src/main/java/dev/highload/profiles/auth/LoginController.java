package dev.highload.profiles.auth;

import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /login}: a bearer token for a user id and password. */
@RestController
class LoginController {

	private final LoginService logins;

	LoginController(LoginService logins) {
		this.logins = logins;
	}

	@Operation(summary = "Log in", description = "Unknown ids and wrong passwords get the same 401.")
	@PostMapping("/login")
	LoginResponse login(@Valid @RequestBody LoginRequest request) {
		return new LoginResponse(this.logins.login(request));
	}

}
