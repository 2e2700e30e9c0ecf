package dev.highload.profiles;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue 59: a client that holds as many connections to a port as it can open, from one
 * source address, sending nothing on them (as a client that sends one cheap request a
 * minute would hold them). A thread opens connections in batches up to a bound and,
 * between batches, drops those the server closed; what it kept for at least half a second
 * counts as held. Bounded in connections open at once (the descriptors of this process
 * and of the server), in connections tried (20,000) and in time (until {@link #close()}).
 */
final class ConnectionHog implements AutoCloseable {

	/** A connection counts as held once open this long: a refused one closes at once. */
	private static final long HELD_AFTER_NANOS = 500_000_000L;

	/** Connections tried in all: a bound on the load on both ends. */
	private static final int MAX_ATTEMPTS = 20_000;

	private final InetSocketAddress source;

	private final InetSocketAddress target;

	private final int bound;

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final List<Held> open = new ArrayList<>();

	private final Thread thread;

	private int attempts;

	private int failedConnects;

	private int maxHeld;

	private record Held(SocketChannel channel, long openedAt) {
	}

	/**
	 * @param source the address to connect from
	 * @param target the port to hold
	 * @param bound at most this many connections open at once
	 */
	ConnectionHog(InetSocketAddress source, InetSocketAddress target, int bound) {
		this.source = source;
		this.target = target;
		this.bound = bound;
		this.thread = new Thread(this::hog, "connection-hog");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void hog() {
		ByteBuffer scratch = ByteBuffer.allocate(512);
		while (this.running.get()) {
			synchronized (this) {
				prune(scratch);
				for (int i = 0; i < 200 && this.open.size() < this.bound && this.attempts < MAX_ATTEMPTS; i++) {
					this.attempts++;
					try {
						SocketChannel channel = SocketChannel.open();
						try {
							channel.bind(this.source);
							channel.socket().connect(this.target, 1000);
							channel.configureBlocking(false);
							this.open.add(new Held(channel, System.nanoTime()));
						}
						catch (IOException refused) {
							this.failedConnects++;
							channel.close();
						}
					}
					catch (IOException ex) {
						this.failedConnects++;
					}
				}
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/** Drops what the server closed; counts what stayed open long enough as held. */
	private void prune(ByteBuffer scratch) {
		long now = System.nanoTime();
		int held = 0;
		for (Iterator<Held> it = this.open.iterator(); it.hasNext();) {
			Held connection = it.next();
			boolean closed;
			try {
				scratch.clear();
				closed = connection.channel().read(scratch) < 0;
			}
			catch (IOException reset) {
				closed = true;
			}
			if (closed) {
				close(connection.channel());
				it.remove();
			}
			else if (now - connection.openedAt() >= HELD_AFTER_NANOS) {
				held++;
			}
		}
		this.maxHeld = Math.max(this.maxHeld, held);
	}

	/** The most connections held at once so far. */
	synchronized int maxHeld() {
		return this.maxHeld;
	}

	synchronized String describe() {
		return this.attempts + " connections tried from " + this.source.getAddress().getHostAddress() + ", "
				+ this.failedConnects + " not connected, at most " + this.maxHeld + " held at once (bound " + this.bound
				+ ")";
	}

	@Override
	public void close() throws InterruptedException {
		this.running.set(false);
		this.thread.join(30_000);
		synchronized (this) {
			this.open.forEach((connection) -> close(connection.channel()));
			this.open.clear();
		}
	}

	private static void close(SocketChannel channel) {
		try {
			channel.close();
		}
		catch (IOException ignored) {
			// Closing what the server already closed.
		}
	}

}
