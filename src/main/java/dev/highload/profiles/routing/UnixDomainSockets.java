package dev.highload.profiles.routing;

import java.io.File;
import java.net.SocketException;

import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.newsclub.net.unix.AFUNIXSocketFactory;

/**
 * pgjdbc's socket factory for nodes on this machine: the connection to {@code host:port}
 * goes to PostgreSQL's Unix-domain socket {@code .s.PGSQL.<port>} in one directory, so
 * the multi-host URLs, their roles and load balancing stay as they are and only the
 * transport changes. A query's write and its answer's read then skip the TCP/IP stack on
 * both sides, which on loopback runs in the writer's system call.
 * <p>
 * pgjdbc makes one instance per connection, with the directory as its argument
 * ({@code socketFactoryArg}); junixsocket maps the address.
 */
public final class UnixDomainSockets extends AFUNIXSocketFactory {

	private final File directory;

	public UnixDomainSockets(String directory) {
		this.directory = new File(directory);
	}

	@Override
	public AFUNIXSocketAddress addressFromHost(String host, int port) throws SocketException {
		return AFUNIXSocketAddress.of(new File(this.directory, ".s.PGSQL." + port));
	}

	@Override
	public boolean isHostnameSupported(String host) {
		return true;
	}

}
