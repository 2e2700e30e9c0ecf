package dev.highload.profiles.consistency;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link ConsistencyTokens} of the service, signed with keys derived from the
 * {@link KeyRing} (the bearer tokens' ring).
 */
@Configuration(proxyBeanMethods = false)
class ConsistencyTokenKeys {

	@Bean
	ConsistencyTokens consistencyTokens(KeyRing ring) {
		return new ConsistencyTokens(ring.keys());
	}

}
