package dev.highload.profiles.auth;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.highload.profiles.auth.TokenServiceTests.entry;
import static dev.highload.profiles.auth.TokenServiceTests.randomKey;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unusable token keys stop the start before any bean is made, so before the database is
 * touched.
 */
class TokenKeysCheckTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(TokenKeysCheck.class, FirstBean.class);

	@Test
	void withoutKeysTheStartStopsBeforeTheFirstBean() {
		this.runner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(TokenKeyException.class)
				.hasMessageStartingWith("app.auth.token-keys is not set");
		});
	}

	@Test
	void aShortKeyStopsTheStartBeforeTheFirstBean() {
		this.runner.withPropertyValues("app.auth.token-keys=" + entry("k1", randomKey(16))).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(TokenKeyException.class)
				.hasMessageStartingWith("The key 'k1' of app.auth.token-keys decodes to 16 bytes");
		});
	}

	@Test
	void usableKeysLetTheBeansBeMade() {
		this.runner.withPropertyValues("app.auth.token-keys=" + entry("k1", randomKey(32)))
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessage("the first bean was made"));
	}

	/** Stands for the database: making its bean fails the start in a way of its own. */
	@Configuration(proxyBeanMethods = false)
	static class FirstBean {

		@Bean
		Object database() {
			throw new IllegalStateException("the first bean was made");
		}

	}

}
