package dev.highload.profiles;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What a Kubernetes Service does to a database connection, on loopback: each new
 * connection goes to one backend, chosen when it is accepted, and stays there; bytes are
 * copied both ways until either side closes. A stand-in for CloudNativePG's
 * {@code <cluster>-ro} balances over the replicas ({@link #roundRobin}); one for
 * {@code <cluster>-rw} sends every new connection to whichever node is primary then.
 */
public final class ServiceStandIn implements AutoCloseable {

	private final ServerSocket server;

	private final Supplier<InetSocketAddress> backend;

	private final List<Socket> open = new CopyOnWriteArrayList<>();

	private final Map<Integer, AtomicLong> accepted = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/**
	 * Listens on a free loopback port at once.
	 * @param name the threads' name
	 * @param backend where a new connection goes, asked once per connection
	 */
	public ServiceStandIn(String name, Supplier<InetSocketAddress> backend) throws IOException {
		this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
		this.backend = backend;
		Thread acceptor = new Thread(this::accept, name + "-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** Each new connection to the next address in turn. */
	public static Supplier<InetSocketAddress> roundRobin(List<InetSocketAddress> backends) {
		AtomicInteger next = new AtomicInteger();
		return () -> backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
	}

	/**
	 * Each new connection to whichever of {@code nodes} is primary at that moment, as
	 * {@code <cluster>-rw} follows a promotion: pgjdbc finds it, as the given role.
	 * @param nodes every node as {@code host:port}
	 */
	public static Supplier<InetSocketAddress> primaryOf(List<String> nodes, String database, String username,
			String password) {
		String url = "jdbc:postgresql://" + String.join(",", nodes) + "/" + database
				+ "?targetServerType=primary&connectTimeout=2";
		return () -> {
			try (Connection connection = DriverManager.getConnection(url, username, password);
					Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT inet_server_port()")) {
				rs.next();
				return new InetSocketAddress("127.0.0.1", rs.getInt(1));
			}
			catch (SQLException ex) {
				throw new IllegalStateException("No primary answers", ex);
			}
		};
	}

	/** {@code host:port} as a socket address. */
	public static InetSocketAddress address(String hostPort) {
		int colon = hostPort.lastIndexOf(':');
		return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
	}

	/** {@code 127.0.0.1:<port>} for a service's settings. */
	public String address() {
		return "127.0.0.1:" + this.server.getLocalPort();
	}

	/** Connections accepted so far, by the backend's port. */
	public Map<Integer, Long> acceptedByBackend() {
		Map<Integer, Long> counts = new TreeMap<>();
		this.accepted.forEach((port, count) -> counts.put(port, count.get()));
		return counts;
	}

	private void accept() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.server.accept();
			}
			catch (IOException ex) {
				return;
			}
			try {
				InetSocketAddress target = this.backend.get();
				Socket upstream = new Socket();
				upstream.connect(target, 2_000);
				this.accepted.computeIfAbsent(target.getPort(), (port) -> new AtomicLong()).incrementAndGet();
				this.open.add(client);
				this.open.add(upstream);
				pipe(client, upstream);
				pipe(upstream, client);
			}
			catch (IOException | RuntimeException ex) {
				closeQuietly(client);
			}
		}
	}

	private void pipe(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int n;
				while ((n = in.read(buffer)) != -1) {
					out.write(buffer, 0, n);
				}
			}
			catch (IOException ex) {
				// Either side went away: so does the other.
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "stand-in-pipe");
		thread.setDaemon(true);
		thread.start();
	}

	private void closeQuietly(Socket socket) {
		this.open.remove(socket);
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closing.
		}
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		for (Socket socket : this.open) {
			closeQuietly(socket);
		}
	}

}
