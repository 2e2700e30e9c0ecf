package dev.highload.profiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Neither deployment publishes a port: a port published even on 127.0.0.1 was reachable
 * at the container's address by a neighbour routing the bridge's subnet through the host,
 * on the Docker 20.10 these machines run (docs/deployment.md). What serves clients runs
 * in the host's network namespace instead and binds loopback itself.
 */
class ComposeFilesTests {

	@ParameterizedTest
	@ValueSource(strings = { "docker-compose.yml", "docker-compose.ha.yml" })
	void noPortIsPublished(String file) throws IOException {
		Map<String, Object> compose = new Yaml().load(Files.readString(Path.of(file)));
		Map<String, Map<String, Object>> services = map(compose.get("services"));
		assertThat(services).isNotEmpty();
		services.forEach((name, service) -> assertThat(service).as("%s: %s", file, name).doesNotContainKey("ports"));
		assertThat(services.values()).as("%s: the services in the host's network namespace", file)
			.anyMatch((service) -> "host".equals(service.get("network_mode")));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> map(Object value) {
		return (Map<String, Map<String, Object>>) value;
	}

}
