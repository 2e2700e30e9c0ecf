package dev.highload.profiles.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Secrets as files for the compose scripts (db/scripts/file-env.sh): {@code X_FILE} names
 * a file that holds X, as Compose secrets and the official postgres image have it. The
 * scripts stop on a secret given twice or not at all before they touch anything.
 */
class FileEnvScriptTests {

	private static final Path SCRIPTS = Path.of("db/scripts").toAbsolutePath();

	@TempDir
	Path dir;

	@Test
	void aSecretFileGivesTheVariableItsContentWithoutTheTrailingNewline() throws Exception {
		Path secret = Files.writeString(this.dir.resolve("secret"), "pa:ss word\n");
		Result result = run(Map.of("SECRET_FILE", secret.toString()), "bash", "-c",
				". '" + SCRIPTS.resolve("file-env.sh") + "'; file_env SECRET required; "
						+ "printf '%s|%s' \"$SECRET\" \"${SECRET_FILE-unset}\"");
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.output()).isEqualTo("pa:ss word|unset");
	}

	@Test
	void aVariableSetDirectlyStaysAsItIs() throws Exception {
		Result result = run(Map.of("SECRET", "direct"), "bash", "-c",
				". '" + SCRIPTS.resolve("file-env.sh") + "'; file_env SECRET required; printf '%s' \"$SECRET\"");
		assertThat(result.output()).isEqualTo("direct");
	}

	@Test
	void initPrimaryRefusesAPasswordGivenBothWays() throws Exception {
		Path secret = Files.writeString(this.dir.resolve("app-password"), "from-file");
		Result result = run(Map.of("PGDATA", this.dir.toString(), "APP_DB_PASSWORD", "direct", "APP_DB_PASSWORD_FILE",
				secret.toString()), "bash", SCRIPTS.resolve("init-primary.sh").toString());
		assertThat(result.exitCode()).isEqualTo(1);
		assertThat(result.output()).isEqualTo(
				"init-primary.sh: both APP_DB_PASSWORD and APP_DB_PASSWORD_FILE are set; set only one of them\n");
	}

	@Test
	void initPrimaryNamesBothWaysOfGivingAMissingPassword() throws Exception {
		Result result = run(Map.of("PGDATA", this.dir.toString(), "APP_DB_PASSWORD", "direct"), "bash",
				SCRIPTS.resolve("init-primary.sh").toString());
		assertThat(result.exitCode()).isEqualTo(1);
		assertThat(result.output()).isEqualTo("init-primary.sh: APP_DB_MIGRATION_PASSWORD is required: set it, "
				+ "or APP_DB_MIGRATION_PASSWORD_FILE to a file that holds it\n");
	}

	@Test
	void replicaRefusesASecretFileItCannotRead() throws Exception {
		Path missing = this.dir.resolve("missing");
		Result result = run(Map.of("PGDATA", this.dir.toString(), "REPLICA_NAME", "replica1",
				"REPLICATION_PASSWORD_FILE", missing.toString()), "bash", SCRIPTS.resolve("replica.sh").toString());
		assertThat(result.exitCode()).isEqualTo(1);
		assertThat(result.output()).startsWith("replica.sh: REPLICATION_PASSWORD_FILE names " + missing
				+ ", which is missing or not readable by user ");
	}

	@Test
	void patroniBootstrapRefusesAnEmptySecretFile() throws Exception {
		Path empty = Files.writeString(this.dir.resolve("empty"), "");
		Result result = run(Map.of("APP_DB_PASSWORD_FILE", empty.toString()), "bash",
				SCRIPTS.resolve("patroni-bootstrap.sh").toString(), "postgresql://nowhere");
		assertThat(result.exitCode()).isEqualTo(1);
		assertThat(result.output())
			.isEqualTo("patroni-bootstrap.sh: APP_DB_PASSWORD_FILE names " + empty + ", which is empty\n");
	}

	private static Result run(Map<String, String> env, String... command) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(List.of(command)).redirectErrorStream(true);
		builder.environment()
			.keySet()
			.removeIf((key) -> key.startsWith("PG") || key.startsWith("APP_") || key.startsWith("REPLICA")
					|| key.startsWith("SECRET"));
		builder.environment().putAll(env);
		Process process = builder.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		return new Result(process.exitValue(), output);
	}

	private record Result(int exitCode, String output) {
	}

}
