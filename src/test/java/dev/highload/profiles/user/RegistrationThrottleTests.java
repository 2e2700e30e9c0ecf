package dev.highload.profiles.user;

import java.util.UUID;

import dev.highload.profiles.auth.RegistrationThrottle;
import dev.highload.profiles.auth.ThrottleProperties;
import dev.highload.profiles.auth.TokenService;
import dev.highload.profiles.routing.WalPosition;
import dev.highload.profiles.consistency.TestConsistencyTokens;
import dev.highload.profiles.input.WebProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.test.web.servlet.assertj.MvcTestResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * The registration-flood limit, per client address (the socket's, never a header), with
 * the real throttle and the service mocked.
 */
@WebMvcTest(UserController.class)
@EnableConfigurationProperties({ WebProperties.class, ThrottleProperties.class })
@Import({ RegistrationThrottle.class, RegistrationThrottleTests.Infrastructure.class, TestConsistencyTokens.class })
@TestPropertySource(
		properties = { "app.auth.throttle.registrations-per-address=3", "app.auth.throttle.registration-window=10m" })
class RegistrationThrottleTests {

	private static final String BODY = "{\"first_name\":\"Ivan\",\"second_name\":\"Petrov\",\"birthdate\":\"1990-01-01\","
			+ "\"password\":\"secret-password\"}";

	@Autowired
	MockMvcTester mvc;

	@MockitoBean
	UserService users;

	@BeforeEach
	void positionAfterWrite() {
		given(this.users.positionAfterWrite()).willReturn(new WalPosition(0x16B3748L));
	}

	@MockitoBean
	Registrations registrations;

	@MockitoBean
	TokenService tokens;

	@Test
	void aClientPastTheLimitGets429WithRetryAfterAndOthersDoNot() {
		given(this.registrations.register(any(), any(), any())).willReturn(UUID.randomUUID());
		for (int i = 0; i < 3; i++) {
			assertThat(register("192.0.2.10", null)).as("registration %d", i + 1).hasStatus(200);
		}
		MvcTestResult refused = register("192.0.2.10", null);
		assertThat(refused).hasStatus(429).hasContentType(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(Long.parseLong(refused.getResponse().getHeader("Retry-After"))).isBetween(1L, 600L);
		assertThat(refused).bodyJson().extractingPath("$.title").isEqualTo("Too many requests");
		assertThat(refused).bodyJson().extractingPath("$.status").isEqualTo(429);
		// The refused registration never reached the service (no hash, no row).
		verify(this.registrations, times(3)).register(any(), any(), any());
		// A forwarded-for header is the client's to write: it changes nothing.
		assertThat(register("192.0.2.10", "198.51.100.1")).hasStatus(429);
		assertThat(register("192.0.2.11", null)).hasStatus(200);
	}

	@Test
	void invalidRegistrationsAreRejectedBeforeTheyCount() {
		given(this.registrations.register(any(), any(), any())).willReturn(UUID.randomUUID());
		for (int i = 0; i < 10; i++) {
			assertThat(this.mvc.post().uri("/user/register").with((request) -> {
				request.setRemoteAddr("192.0.2.20");
				return request;
			}).contentType(MediaType.APPLICATION_JSON).content("{}")).hasStatus(400);
		}
		assertThat(register("192.0.2.20", null)).hasStatus(200);
	}

	private MvcTestResult register(String address, String forwardedFor) {
		var request = this.mvc.post().uri("/user/register").with((r) -> {
			r.setRemoteAddr(address);
			return r;
		}).contentType(MediaType.APPLICATION_JSON).content(BODY);
		if (forwardedFor != null) {
			request = request.header("X-Forwarded-For", forwardedFor);
		}
		return request.exchange();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Infrastructure {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
