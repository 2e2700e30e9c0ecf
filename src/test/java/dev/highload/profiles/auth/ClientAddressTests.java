package dev.highload.profiles.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class ClientAddressTests {

	@Test
	void anIpv4AddressIsItsOwnKey() {
		assertThat(ClientAddress.key("203.0.113.7")).isEqualTo("203.0.113.7");
	}

	@Test
	void anIpv6AddressIsKeyedByItsSlash64() {
		assertThat(ClientAddress.key("2001:db8:1:2:3:4:5:6")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
		assertThat(ClientAddress.key("2001:db8:1:2:ffff::1")).isEqualTo("2001:db8:1:2:0:0:0:0/64");
	}

	@Test
	void anIpv4MappedAddressIsTheIpv4Address() {
		assertThat(ClientAddress.key("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
	}

	@Test
	void noAddressIsUnknown() {
		assertThat(ClientAddress.key(null)).isEqualTo("unknown");
		assertThat(ClientAddress.key("")).isEqualTo("unknown");
	}

	/**
	 * Issue 59: a forwarded address with a colon that is not an IPv6 literal
	 * ({@code x:1}) is kept as written, never looked up as a host name (a lookup would
	 * block a request thread on the resolver, with a name an attacker chose). A JVM of
	 * its own resolves names from a hosts file that maps {@code x:1} and {@code g::1} to
	 * addresses: were either looked up, its key would be that address. Before the fix,
	 * {@code InetAddress.getByName("x:1")} looked it up.
	 */
	@Test
	void aForwardedNameIsNeverLookedUp(@TempDir Path temp) throws Exception {
		Path hosts = temp.resolve("hosts");
		Files.writeString(hosts, "127.0.0.5 x:1\n127.0.0.6 g::1\n", StandardCharsets.US_ASCII);
		String java = ProcessHandle.current().info().command().orElse("java");
		Path output = temp.resolve("keys.txt");
		Process process = new ProcessBuilder(java, "-Djdk.net.hosts.file=" + hosts, "-cp",
				System.getProperty("java.class.path"), Keys.class.getName(), "x:1", "g::1")
			.redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.start();
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(Files.readString(output)).isZero();
		assertThat(Files.readAllLines(output)).containsExactly("x:1", "g::1");
	}

	/** Prints the key of each argument, one a line. */
	static final class Keys {

		public static void main(String[] arguments) throws IOException {
			for (String argument : List.of(arguments)) {
				System.out.println(ClientAddress.key(argument));
			}
		}

	}

}
