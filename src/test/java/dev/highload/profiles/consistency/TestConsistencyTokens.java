package dev.highload.profiles.consistency;

import java.security.SecureRandom;
import java.util.Map;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Consistency tokens under a throw-away key, for the web slices, which load no
 * configuration of the features (in the application, auth's key ring signs them).
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestConsistencyTokens {

	@Bean
	ConsistencyTokens consistencyTokens() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		return new ConsistencyTokens(Map.of("test", key));
	}

}
