package dev.highload.profiles.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the embedded cluster adds to the service's configuration, which itself names no
 * cluster: where the pools connect, the migration role, a throw-away token key, and that
 * seeding joins a running cluster.
 */
class EmbeddedClusterDefaultsTests {

	@Test
	void thePoolsAndTheMigrationRoleFollowTheCluster() {
		StandardEnvironment environment = postProcessed("app.cluster.primary-port=36432",
				"app.cluster.replica1-port=36433", "app.cluster.replica2-port=36434", "app.cluster.username=svc");
		assertThat(environment.getProperty("app.db.nodes"))
			.isEqualTo("127.0.0.1:36432,127.0.0.1:36433,127.0.0.1:36434");
		assertThat(environment.getProperty("app.db.replicas")).isEqualTo("127.0.0.1:36433,127.0.0.1:36434");
		assertThat(environment.getProperty("app.db.migration.username")).isEqualTo("svc_owner");
		assertThat(environment.getProperty("app.db.migration.password")).isEqualTo("svc_owner");
		assertThat(environment.getProperty("app.cluster.join-running")).isNull();
	}

	@Test
	void whatIsSetElsewhereWins() {
		StandardEnvironment environment = postProcessed("app.db.nodes=db:5432", "app.db.migration.username=",
				"app.auth.token-keys=k1:" + key());
		assertThat(environment.getProperty("app.db.nodes")).isEqualTo("db:5432");
		assertThat(environment.getProperty("app.db.migration.username")).isEmpty();
		assertThat(environment.getProperty("app.db.migration.password")).isNull();
		assertThat(environment.getProperty("app.auth.token-keys")).startsWith("k1:");
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", ",", " , \n" })
	void withoutKeysEachStartGetsARandomKeyOfItsOwn(String keys) {
		String first = postProcessed("app.auth.token-keys=" + keys).getProperty("app.auth.token-keys");
		String second = postProcessed().getProperty("app.auth.token-keys");
		for (String entry : List.of(first, second)) {
			assertThat(entry).startsWith(EmbeddedClusterDefaults.THROW_AWAY_KEY_ID + ":");
			assertThat(Base64.getDecoder().decode(entry.substring(entry.indexOf(':') + 1))).hasSize(32);
		}
		assertThat(first).isNotEqualTo(second);
	}

	@Test
	void seedingJoinsTheClusterOfARunningService() {
		assertThat(postProcessed("app.seed.users=1000").getProperty("app.cluster.join-running")).isEqualTo("true");
		assertThat(postProcessed("app.seed.users=1000", "app.cluster.join-running=false")
			.getProperty("app.cluster.join-running")).isEqualTo("false");
	}

	@Test
	void withTheClusterOffNothingIsAdded() {
		StandardEnvironment environment = postProcessed("app.cluster.enabled=false", "app.seed.users=10");
		assertThat(environment.getPropertySources().stream().map((source) -> source.getName()))
			.noneMatch((name) -> name.startsWith(EmbeddedClusterDefaults.SOURCE));
		assertThat(environment.getProperty("app.auth.token-keys")).isNull();
	}

	private static StandardEnvironment postProcessed(String... properties) {
		Map<String, Object> map = new HashMap<>();
		for (String property : properties) {
			int equals = property.indexOf('=');
			map.put(property.substring(0, equals), property.substring(equals + 1));
		}
		StandardEnvironment environment = new StandardEnvironment();
		// Only what the test says: none of the machine's APP_... variables.
		List<String> names = new ArrayList<>();
		environment.getPropertySources().forEach((source) -> names.add(source.getName()));
		names.forEach(environment.getPropertySources()::remove);
		environment.getPropertySources().addFirst(new MapPropertySource("test", map));
		new EmbeddedClusterDefaults((destination) -> destination.get()).postProcessEnvironment(environment,
				new SpringApplication());
		return environment;
	}

	private static String key() {
		byte[] key = new byte[32];
		Arrays.fill(key, (byte) 7);
		return Base64.getEncoder().encodeToString(key);
	}

}
