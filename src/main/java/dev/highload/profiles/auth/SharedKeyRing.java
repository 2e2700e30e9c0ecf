package dev.highload.profiles.auth;

import java.util.Map;

import dev.highload.profiles.consistency.KeyRing;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lends the token key ring ({@code app.auth.token-keys}) to the consistency tokens, which
 * derive keys of their own from it: the instances of a deployment already share it, and a
 * key's rotation retires both kinds of token at once.
 */
@Configuration(proxyBeanMethods = false)
class SharedKeyRing {

	@Bean
	KeyRing consistencyKeyRing(AuthProperties properties) {
		Map<String, byte[]> keys = TokenKeys.check(properties.tokenKeys());
		return () -> keys;
	}

}
