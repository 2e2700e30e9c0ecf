package dev.highload.profiles;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 59: clients with IPv6 addresses of one /64, as a host given a /64 has them. A
 * network namespace of the test's own, joined to the host's by a veth pair: the host's
 * end has {@code fd59::1/64}, the namespace's end {@code fd59::a} and {@code fd59::b}
 * (unique local addresses, routed nowhere). Requests are made with curl run in the
 * namespace, bound to one of its addresses. Needs root and iproute2; {@link #close()}
 * deletes the namespace and with it the pair.
 */
final class Ipv6Neighbour implements AutoCloseable {

	static final String HOST_ADDRESS = "fd59::1";

	static final String FIRST = "fd59::a";

	static final String SECOND = "fd59::b";

	private static final String NAMESPACE = "profiles-it-v6";

	private static final String HOST_END = "pit6h";

	private static final String NAMESPACE_END = "pit6n";

	private Ipv6Neighbour() {
	}

	static Ipv6Neighbour create() throws IOException, InterruptedException {
		removeLeftovers();
		Ipv6Neighbour neighbour = new Ipv6Neighbour();
		try {
			ip("netns", "add", NAMESPACE);
			ip("link", "add", HOST_END, "type", "veth", "peer", "name", NAMESPACE_END);
			ip("link", "set", NAMESPACE_END, "netns", NAMESPACE);
			// nodad: usable at once, without the second of duplicate address detection.
			ip("addr", "add", HOST_ADDRESS + "/64", "dev", HOST_END, "nodad");
			ip("link", "set", HOST_END, "up");
			inNamespace("ip", "link", "set", "lo", "up");
			inNamespace("ip", "addr", "add", FIRST + "/64", "dev", NAMESPACE_END, "nodad");
			inNamespace("ip", "addr", "add", SECOND + "/64", "dev", NAMESPACE_END, "nodad");
			inNamespace("ip", "link", "set", NAMESPACE_END, "up");
		}
		catch (IOException | InterruptedException | AssertionError ex) {
			neighbour.close();
			throw ex;
		}
		return neighbour;
	}

	/**
	 * An HTTPS GET from one of the namespace's addresses to the host's end, port
	 * {@code port}, trusting the authority in {@code ca} for the name localhost.
	 * @return the status code, or 0 when no answer came
	 */
	int get(String from, int port, String path, Path ca) throws IOException, InterruptedException {
		String url = "https://localhost:" + port + path;
		ComposeProject.Result result = ComposeProject.run(Duration.ofSeconds(30),
				List.of("ip", "netns", "exec", NAMESPACE, "curl", "-sS", "--max-time", "10", "--interface", from,
						"--cacert", ca.toString(), "--connect-to",
						"localhost:" + port + ":[" + HOST_ADDRESS + "]:" + port, "-o", "/dev/null", "-w",
						"%{http_code}", url),
				Map.of());
		String code = result.stdout().strip();
		return code.matches("\\d{3}") ? Integer.parseInt(code) : 0;
	}

	@Override
	public void close() throws IOException, InterruptedException {
		removeLeftovers();
	}

	private static void removeLeftovers() throws IOException, InterruptedException {
		ComposeProject.run(Duration.ofSeconds(30), List.of("ip", "netns", "del", NAMESPACE), Map.of());
		ComposeProject.run(Duration.ofSeconds(30), List.of("ip", "link", "del", HOST_END), Map.of());
	}

	private static void inNamespace(String... command) throws IOException, InterruptedException {
		List<String> full = new ArrayList<>(List.of("netns", "exec", NAMESPACE));
		full.addAll(List.of(command));
		ip(full.toArray(String[]::new));
	}

	private static void ip(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("ip"));
		command.addAll(List.of(arguments));
		ComposeProject.Result result = ComposeProject.run(Duration.ofSeconds(30), command, Map.of());
		assertThat(result.exitCode()).as(String.join(" ", command) + ":\n" + result.output()).isZero();
	}

}
