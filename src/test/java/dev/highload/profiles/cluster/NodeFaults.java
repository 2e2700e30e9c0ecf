package dev.highload.profiles.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.awaitility.Awaitility.await;

/**
 * Faults injected into the nodes of the running embedded cluster, for the fault tests: a
 * clean stop, a kill of every process of a node (a crashed host), and SIGSTOP of every
 * process of a node (a host that still accepts TCP connections but answers nothing).
 * {@link #heal()} undoes all of them; call it in a {@code finally} or after each test.
 */
public final class NodeFaults {

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

	private final EmbeddedCluster cluster;

	private final Set<Long> frozen = ConcurrentHashMap.newKeySet();

	public NodeFaults(EmbeddedCluster cluster) {
		this.cluster = cluster;
	}

	/** Fast shutdown of one node, as {@code pg_ctl stop -m fast} does. */
	public void stop(String node) throws InterruptedException {
		this.cluster.find(node).stop(STOP_TIMEOUT);
	}

	/**
	 * SIGKILL to the node's postmaster and every backend at once, as when its host dies:
	 * no shutdown, no goodbye to the clients.
	 */
	public void kill(String node) throws InterruptedException {
		PostgresNode target = this.cluster.find(node);
		// Stopped first, so the postmaster forks nothing between listing and killing.
		List<Long> pids = freezeAll(target);
		signal("KILL", pids);
		this.frozen.removeAll(pids);
		await("node " + node + " gone after SIGKILL").atMost(STOP_TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !target.isRunning());
	}

	/**
	 * SIGSTOP to the node's postmaster and every backend: connections are still accepted
	 * by the kernel, but nothing is ever answered. {@link #thaw} or {@link #heal} resumes
	 * them.
	 */
	public void freeze(String node) {
		freezeAll(this.cluster.find(node));
	}

	/** SIGCONT to every process {@link #freeze} stopped. */
	public void thaw() {
		List<Long> pids = new ArrayList<>(this.frozen);
		if (!pids.isEmpty()) {
			signal("CONT", pids);
			this.frozen.removeAll(pids);
		}
	}

	/** Starts a node that was stopped or killed; one that runs is left alone. */
	public void start(String node) throws IOException, InterruptedException {
		this.cluster.restart(node);
	}

	/** Resumes every frozen process and starts every node that is down. */
	public void heal() throws IOException, InterruptedException {
		thaw();
		for (String node : this.cluster.ports().keySet()) {
			start(node);
		}
	}

	private List<Long> freezeAll(PostgresNode node) {
		long postmaster = node.pid();
		if (!node.isRunning()) {
			throw new IllegalStateException("Node " + node.name() + " is not running");
		}
		List<Long> pids = new ArrayList<>();
		pids.add(postmaster);
		signal("STOP", pids);
		this.frozen.add(postmaster);
		ProcessHandle.of(postmaster).ifPresent((handle) -> handle.descendants().forEach((p) -> pids.add(p.pid())));
		List<Long> backends = pids.subList(1, pids.size());
		if (!backends.isEmpty()) {
			signal("STOP", backends);
			this.frozen.addAll(backends);
		}
		return pids;
	}

	private static void signal(String signal, List<Long> pids) {
		List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
		pids.forEach((pid) -> command.add(Long.toString(pid)));
		try {
			Process kill = new ProcessBuilder(command).inheritIO().start();
			kill.waitFor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send SIG" + signal + " to " + pids, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
