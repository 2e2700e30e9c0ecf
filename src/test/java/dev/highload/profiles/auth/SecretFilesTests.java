package dev.highload.profiles.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static dev.highload.profiles.auth.TokenServiceTests.entry;
import static dev.highload.profiles.auth.TokenServiceTests.randomKey;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets as files, the way Compose mounts {@code secrets:}: a file named after a
 * property in a config tree directory becomes that property.
 */
class SecretFilesTests {

	@TempDir
	Path secrets;

	@Test
	void aFileNamedAfterThePropertyInAConfigTreeGivesTheTokenKeys() throws IOException {
		String current = entry("current", randomKey(32));
		String previous = entry("previous", randomKey(32));
		Files.writeString(this.secrets.resolve("app.auth.token-keys"), current + "," + previous + "\n");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(AuthPropertiesOnly.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run("--spring.config.import=configtree:" + this.secrets + "/")) {
			List<String> bound = context.getBean(AuthProperties.class).tokenKeys();
			assertThat(bound).containsExactly(current, previous);
			TokenKeys keys = TokenKeys.of(bound);
			assertThat(keys.currentId()).isEqualTo("current");
			assertThat(keys.verifier("previous")).isNotNull();
		}
	}

	@Test
	void theServiceReadsSecretFilesFromRunSecretsWhenThereAreAny() throws IOException {
		List<PropertySource<?>> application = new YamlPropertySourceLoader().load("application.yml",
				new ClassPathResource("application.yml"));
		assertThat(application).singleElement()
			.extracting((source) -> String.valueOf(source.getProperty("spring.config.import")))
			.isEqualTo("optional:configtree:/run/secrets/");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(AuthProperties.class)
	static class AuthPropertiesOnly {

	}

}
