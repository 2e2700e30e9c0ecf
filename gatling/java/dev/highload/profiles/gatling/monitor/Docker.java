package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the {@code docker} command says about containers: which one publishes a port, and
 * the containers of a Compose project with their compose service names. Asked only when
 * the service is not a process of this machine, or is one in a container; every failure
 * (no {@code docker} command, no daemon, no permission) is an empty answer.
 */
final class Docker {

	private static final long TIMEOUT_SECONDS = 10;

	private static final String NO_VALUE = "<no value>";

	/**
	 * One line per container: id, name, main process, compose project, compose service
	 * and container number, tab-separated; a label the container lacks is {@code <no
	 * value>}.
	 */
	static final String INSPECT_FORMAT = "{{.Id}}\t{{.Name}}\t{{.State.Pid}}"
			+ "\t{{index .Config.Labels \"com.docker.compose.project\"}}"
			+ "\t{{index .Config.Labels \"com.docker.compose.service\"}}"
			+ "\t{{index .Config.Labels \"com.docker.compose.container-number\"}}";

	private Docker() {
	}

	/**
	 * The running container that publishes a port of this machine, as {@code docker run
	 * -p} and compose's {@code ports:} do.
	 * @param port the port on this machine
	 * @return its full id, or empty
	 */
	static Optional<String> publishing(int port) {
		return run("docker", "ps", "--no-trunc", "--filter", "publish=" + port, "--format", "{{.ID}}")
			.flatMap((out) -> out.lines().map(String::strip).filter((id) -> !id.isEmpty()).findFirst());
	}

	/**
	 * The container and, when it belongs to a Compose project, every running container of
	 * that project.
	 * @param containerId the container
	 * @return the containers, empty when {@code docker} cannot tell
	 */
	static List<Container> withProject(String containerId) {
		List<Container> one = inspect(List.of(containerId));
		if (one.isEmpty() || one.get(0).project().isEmpty()) {
			return one;
		}
		List<Container> project = project(one.get(0).project());
		return project.isEmpty() ? one : project;
	}

	/**
	 * The running containers of a Compose project.
	 * @param project the project's name
	 * @return its containers, empty when {@code docker} cannot tell
	 */
	static List<Container> project(String project) {
		List<String> ids = run("docker", "ps", "--no-trunc", "--quiet", "--filter",
				"label=com.docker.compose.project=" + project)
			.map((out) -> out.lines().map(String::strip).filter((id) -> !id.isEmpty()).toList())
			.orElse(List.of());
		return ids.isEmpty() ? List.of() : inspect(ids);
	}

	private static List<Container> inspect(List<String> ids) {
		List<String> command = new ArrayList<>(List.of("docker", "inspect", "--format", INSPECT_FORMAT));
		command.addAll(ids);
		return run(command.toArray(String[]::new)).map(Docker::parseInspect).orElse(List.of());
	}

	/**
	 * Parses what {@code docker inspect --format} prints with {@link #INSPECT_FORMAT}.
	 * @param output the command's output
	 * @return one container per well-formed line
	 */
	static List<Container> parseInspect(String output) {
		List<Container> containers = new ArrayList<>();
		for (String line : output.split("\n")) {
			String[] fields = line.split("\t", -1);
			if (fields.length == 6 && !fields[0].isBlank()) {
				long pid;
				try {
					pid = Long.parseLong(fields[2].strip());
				}
				catch (NumberFormatException ex) {
					continue;
				}
				String name = fields[1].strip();
				containers.add(new Container(fields[0].strip(), name.startsWith("/") ? name.substring(1) : name, pid,
						label(fields[3]), label(fields[4]), label(fields[5])));
			}
		}
		return containers;
	}

	private static String label(String field) {
		String value = field.strip();
		return value.equals(NO_VALUE) ? "" : value;
	}

	private static Optional<String> run(String... command) {
		Process process;
		try {
			process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
		}
		catch (IOException ex) {
			// No docker command on this machine.
			return Optional.empty();
		}
		try (InputStream out = process.getInputStream()) {
			CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
				try {
					return out.readAllBytes();
				}
				catch (IOException ex) {
					return new byte[0];
				}
			});
			byte[] bytes = read.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			boolean exited = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			return (exited && process.exitValue() == 0) ? Optional.of(new String(bytes, StandardCharsets.UTF_8))
					: Optional.empty();
		}
		catch (IOException | ExecutionException | TimeoutException ex) {
			return Optional.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		finally {
			process.destroyForcibly();
		}
	}

	/**
	 * A container as {@code docker inspect} describes it.
	 *
	 * @param id the full id
	 * @param name the name, without Docker's leading slash
	 * @param pid its main process in this machine's {@code /proc}, 0 when it is not
	 * running
	 * @param project its compose project, empty when it has none
	 * @param service its compose service, empty when it has none
	 * @param number its number among the compose service's containers, empty when it has
	 * none
	 */
	record Container(String id, String name, long pid, String project, String service, String number) {

		/**
		 * The id as {@code docker ps} shows it.
		 * @return the first 12 characters of the id
		 */
		String shortId() {
			return this.id.substring(0, Math.min(12, this.id.length()));
		}

	}

}
