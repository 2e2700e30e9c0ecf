package dev.highload.profiles.auth;

import dev.highload.profiles.web.ConsistencyTokens;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Consistency tokens are signed with the bearer tokens' key ring
 * ({@code app.auth.token-keys}): the instances of a deployment already share it, and a
 * key's rotation retires both kinds of token at once. Each kind MACs with a key of its
 * own, derived from the ring's ({@link ConsistencyTokens}).
 */
@Configuration(proxyBeanMethods = false)
class ConsistencyTokenKeys {

	@Bean
	ConsistencyTokens consistencyTokens(AuthProperties properties) {
		return new ConsistencyTokens(TokenKeys.check(properties.tokenKeys()));
	}

}
