package dev.highload.profiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The certificates docker/secrets.sh makes for docker-compose.ha.yml, and how the compose
 * file hands them out: one key per container and use, each certificate for its own names,
 * servers' alone but etcd's peer certificates (a peer both calls and is called), which
 * carry the one name the members admit as a peer. Runs the script and openssl, no Docker.
 */
class SecretsScriptTests {

	private static final String SERVER = "TLS Web Server Authentication";

	private static final String CLIENT = "TLS Web Client Authentication";

	@Test
	void everyContainerGetsAKeyOfItsOwnForItsOwnNamesAndUse(@TempDir Path dir) throws Exception {
		Path secrets = dir.resolve("secrets");
		assertThat(run("bash", "docker/secrets.sh", secrets.toString())).contains("secrets.sh: made");
		Map<String, String> publicKeys = new LinkedHashMap<>();
		for (int n = 1; n <= 3; n++) {
			String node = certificate(secrets.resolve("tls-pg" + n + ".crt"));
			assertThat(node).as("pg%d", n)
				.contains("CN=pg" + n, SERVER, "DNS:pg" + n + ",", "DNS:pg" + n + "-db")
				.doesNotContain(CLIENT);
			assertThat(names(node)).as("pg%d's names", n)
				.containsExactlyInAnyOrder("DNS:pg" + n, "DNS:pg" + n + "-db", "DNS:localhost", "IP Address:127.0.0.1");
			String member = certificate(secrets.resolve("tls-etcd" + n + ".crt"));
			assertThat(member).as("etcd%d", n).contains("CN=etcd" + n, SERVER).doesNotContain(CLIENT);
			assertThat(names(member)).as("etcd%d's names", n)
				.containsExactlyInAnyOrder("DNS:etcd" + n, "DNS:localhost", "IP Address:127.0.0.1");
			String peer = certificate(secrets.resolve("tls-etcd" + n + "-peer.crt"));
			assertThat(peer).as("etcd%d's peer certificate", n).contains("CN=etcd-peer", SERVER + ", " + CLIENT);
			assertThat(names(peer)).as("etcd%d's peer names", n).containsExactly("DNS:etcd" + n);
			for (String name : List.of("tls-pg" + n, "tls-etcd" + n, "tls-etcd" + n + "-peer")) {
				publicKeys.put(name,
						run("openssl", "pkey", "-in", secrets.resolve(name + ".key").toString(), "-pubout"));
			}
		}
		String lb = certificate(secrets.resolve("tls-lb.pem"));
		assertThat(lb).contains(SERVER).doesNotContain(CLIENT);
		publicKeys.put("tls-lb", run("openssl", "pkey", "-in", secrets.resolve("tls-lb.pem").toString(), "-pubout"));
		assertThat(new ArrayList<>(publicKeys.values())).as("public keys of %s", publicKeys.keySet())
			.hasSize(10)
			.doesNotHaveDuplicates();
	}

	@Test
	void eachNodeAndMemberOfTheHaDeploymentMountsItsOwnKeys() throws IOException {
		Map<String, Object> compose = new Yaml().load(Files.readString(Path.of("docker-compose.ha.yml")));
		Map<String, Map<String, Object>> services = map(compose.get("services"));
		for (int n = 1; n <= 3; n++) {
			String own = "tls-pg" + n + ".";
			assertThat(sources(services.get("pg" + n))).as("pg%d's secrets", n)
				.contains("tls-ca.crt", own + "crt", own + "key")
				.noneMatch((name) -> name.startsWith("tls-") && !name.equals("tls-ca.crt") && !name.startsWith(own));
			assertThat(sources(services.get("etcd" + n))).as("etcd%d's secrets", n)
				.containsExactlyInAnyOrder("tls-ca.crt", "tls-etcd" + n + ".crt", "tls-etcd" + n + ".key",
						"tls-etcd" + n + "-peer.crt", "tls-etcd" + n + "-peer.key");
			assertThat(map(services.get("etcd" + n).get("environment")).toString()).as("etcd%d", n)
				.contains("ETCD_PEER_CERT_ALLOWED_CN=etcd-peer");
		}
	}

	/** The secrets' sources a service is given, by name. */
	private static List<String> sources(Map<String, Object> service) {
		List<String> names = new ArrayList<>();
		for (Object secret : (List<?>) service.get("secrets")) {
			names.add((secret instanceof Map<?, ?> long_) ? (String) long_.get("source") : (String) secret);
		}
		return names;
	}

	/**
	 * The subject, extended key usage and alternative names of a certificate, as openssl
	 * prints them.
	 */
	private static String certificate(Path file) throws Exception {
		return run("openssl", "x509", "-in", file.toString(), "-noout", "-subject", "-nameopt", "compat", "-ext",
				"extendedKeyUsage,subjectAltName");
	}

	private static List<String> names(String certificate) {
		String line = certificate.lines()
			.dropWhile((l) -> !l.contains("Subject Alternative Name"))
			.skip(1)
			.findFirst()
			.orElse("");
		return List.of(line.strip().split(",\\s*"));
	}

	private static String run(String... command) throws Exception {
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ended", List.of(command)).isTrue();
		assertThat(process.exitValue()).as("%s: %s", List.of(command), output).isZero();
		return output;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Map<String, Object>> map(Object value) {
		return (Map<String, Map<String, Object>>) value;
	}

}
