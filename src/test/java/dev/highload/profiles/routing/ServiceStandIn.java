package dev.highload.profiles.routing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
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
final class ServiceStandIn implements AutoCloseable {

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
	ServiceStandIn(String name, Supplier<InetSocketAddress> backend) throws IOException {
		this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
		this.backend = backend;
		Thread acceptor = new Thread(this::accept, name + "-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** Each new connection to the next address in turn. */
	static Supplier<InetSocketAddress> roundRobin(List<InetSocketAddress> backends) {
		AtomicInteger next = new AtomicInteger();
		return () -> backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
	}

	/** {@code 127.0.0.1:<port>} for a service's settings. */
	String address() {
		return "127.0.0.1:" + this.server.getLocalPort();
	}

	/** Connections accepted so far, by the backend's port. */
	Map<Integer, Long> acceptedByBackend() {
		Map<Integer, Long> counts = new java.util.TreeMap<>();
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
