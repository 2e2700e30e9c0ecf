package dev.highload.profiles.cluster;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the primary role of the embedded cluster to a standby, from outside the process
 * that runs the nodes (the service keeps running; its write pool finds the new primary).
 * <ol>
 * <li>The old primary is stopped if it still runs and fenced: standby.signal without an
 * upstream, so it can never serve writes again, and a mark that makes the next start of
 * the cluster re-clone it from the new primary. It stays down until then.</li>
 * <li>Of the standbys that answer, the one with the highest received (then replayed) WAL
 * position is promoted. Its synchronous_standby_names is rewritten first: the inherited
 * setting names the promoted node itself and would let commits wait for a node that can
 * never confirm them.</li>
 * <li>The other standby gets a replication slot on the new primary and is re-pointed at
 * it with a configuration reload (primary_conninfo is reloadable since PostgreSQL 13),
 * and follows the new timeline.</li>
 * </ol>
 */
final class Failover {

	private static final Logger log = LoggerFactory.getLogger(Failover.class);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

	private final EmbeddedCluster cluster;

	private final Duration streamingTimeout;

	Failover(EmbeddedCluster cluster, Duration streamingTimeout) {
		this.cluster = cluster;
		this.streamingTimeout = streamingTimeout;
	}

	/**
	 * Runs the failover.
	 * @return what it did
	 * @throws IllegalStateException if no standby can be promoted
	 */
	Result run() throws IOException, InterruptedException {
		long started = System.nanoTime();
		PostgresNode old = this.cluster.currentPrimary();
		// Touch nothing unless there is a standby to promote.
		List<String> before = new ArrayList<>();
		for (PostgresNode node : this.cluster.nodes()) {
			if (node != old && !node.isFenced()) {
				try {
					inspect(node);
					before.add(node.name());
				}
				catch (SQLException ex) {
					log.info("Failover: standby {} does not answer: {}", node.name(), ex.getMessage());
				}
			}
		}
		if (before.isEmpty()) {
			throw new IllegalStateException("No standby answers, nothing to promote; " + old.name() + " left as it is");
		}
		boolean wasRunning = isAlive(old.lockFilePid());
		// Fence first: from here on the old primary can never take writes again.
		old.stopForeign(STOP_TIMEOUT, "the old primary, to fence it");
		old.fence("Primary until a failover at " + Instant.now()
				+ "; the next start of the cluster re-clones this node from the new primary.");
		log.info("Failover: old primary {} {} and fenced", old.name(), wasRunning ? "stopped" : "was down");

		List<Candidate> candidates = new ArrayList<>();
		List<String> unreachable = new ArrayList<>();
		for (PostgresNode node : this.cluster.nodes()) {
			if (node == old || node.isFenced()) {
				continue;
			}
			try {
				candidates.add(inspect(node));
			}
			catch (SQLException ex) {
				unreachable.add(node.name() + " (" + ex.getMessage() + ")");
			}
		}
		Optional<Candidate> best = candidates.stream()
			.max(Comparator.comparingLong(Candidate::received).thenComparingLong(Candidate::replayed));
		if (best.isEmpty()) {
			throw new IllegalStateException("No standby answers, nothing to promote. The old primary " + old.name()
					+ " is fenced; unreachable: " + unreachable);
		}
		PostgresNode promoted = best.get().node();
		// Before the promotion, so its first commit already waits for the right standbys.
		this.cluster.configure(promoted, promoted);
		String password = this.cluster.properties().superuserPassword();
		try (Connection c = promoted.connect("postgres", "postgres", password); Statement s = c.createStatement()) {
			s.execute("SELECT pg_reload_conf()");
			try (ResultSet rs = s.executeQuery("SELECT pg_promote(true, 60)")) {
				rs.next();
				if (!rs.getBoolean(1)) {
					throw new IllegalStateException("pg_promote on " + promoted.name() + " did not finish in 60 s");
				}
			}
		}
		catch (SQLException ex) {
			throw new IOException("Could not promote " + promoted.name() + ": " + ex.getMessage(), ex);
		}
		long promotedAfter = (System.nanoTime() - started) / 1_000_000;
		log.info("Failover: promoted {} in {} ms", promoted.name(), promotedAfter);
		this.cluster.ensureSlots(promoted);

		List<String> repointed = new ArrayList<>();
		for (Candidate candidate : candidates) {
			PostgresNode standby = candidate.node();
			if (standby == promoted) {
				continue;
			}
			this.cluster.configure(standby, promoted);
			try (Connection c = standby.connect("postgres", "postgres", password); Statement s = c.createStatement()) {
				s.execute("SELECT pg_reload_conf()");
				repointed.add(standby.name());
			}
			catch (SQLException ex) {
				unreachable.add(standby.name() + " (" + ex.getMessage() + ")");
			}
		}
		List<String> streaming = awaitStreaming(promoted, repointed.size());
		return new Result(old.name(), wasRunning, promoted.name(), best.get().received(),
				candidates.stream()
					.map((c) -> c.node().name() + " received " + lsn(c.received()) + " replayed " + lsn(c.replayed()))
					.toList(),
				repointed, streaming, unreachable, this.cluster.synchronousStandbyNames(promoted), promotedAfter,
				(System.nanoTime() - started) / 1_000_000);
	}

	private Candidate inspect(PostgresNode node) throws SQLException {
		try (Connection c = node.connect("postgres", "postgres", this.cluster.properties().superuserPassword());
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery(), pg_last_wal_receive_lsn()::text, "
						+ "pg_last_wal_replay_lsn()::text")) {
			rs.next();
			if (!rs.getBoolean(1)) {
				throw new IllegalStateException("Node " + node.name() + " has standby.signal but is not in recovery: "
						+ "it already is a primary. Refusing to fail over into two primaries.");
			}
			long replayed = parseLsn(rs.getString(3));
			String received = rs.getString(2);
			return new Candidate(node, (received != null) ? Math.max(parseLsn(received), replayed) : replayed,
					replayed);
		}
	}

	private List<String> awaitStreaming(PostgresNode primary, int expected) throws InterruptedException {
		long deadline = System.nanoTime() + this.streamingTimeout.toNanos();
		List<String> streaming = List.of();
		while (true) {
			try (Connection c = primary.connect("postgres", "postgres", this.cluster.properties().superuserPassword());
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT application_name || ' (' || sync_state || ')' "
							+ "FROM pg_stat_replication WHERE state = 'streaming' ORDER BY 1")) {
				List<String> names = new ArrayList<>();
				while (rs.next()) {
					names.add(rs.getString(1));
				}
				streaming = names;
			}
			catch (SQLException ex) {
				log.debug("Waiting for standbys to stream from {}: {}", primary.name(), ex.getMessage());
			}
			if (streaming.size() >= expected || System.nanoTime() > deadline) {
				return streaming;
			}
			Thread.sleep(100);
		}
	}

	private static boolean isAlive(long pid) {
		return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	static long parseLsn(String lsn) {
		int slash = lsn.indexOf('/');
		if (slash < 0) {
			throw new IllegalArgumentException("Not an LSN: " + lsn);
		}
		return (Long.parseLong(lsn.substring(0, slash), 16) << 32) | Long.parseLong(lsn.substring(slash + 1), 16);
	}

	static String lsn(long value) {
		return Long.toHexString(value >>> 32).toUpperCase() + "/" + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
	}

	private record Candidate(PostgresNode node, long received, long replayed) {

	}

	/**
	 * What a failover did.
	 *
	 * @param oldPrimary the node that was primary; fenced, down until the next start
	 * @param oldPrimaryWasRunning whether it still ran and was stopped by the failover
	 * @param promoted the new primary
	 * @param promotedLsn the WAL position it had received when it was picked
	 * @param candidates every standby that answered, with its positions
	 * @param repointed standbys now configured to stream from the new primary
	 * @param streaming standbys streaming from the new primary when the command ended,
	 * with their sync state
	 * @param unreachable nodes that did not answer, with the error
	 * @param synchronousStandbyNames the new primary's setting
	 * @param promotedMillis from the start of the command to the end of the promotion
	 * @param totalMillis the whole command
	 */
	record Result(String oldPrimary, boolean oldPrimaryWasRunning, String promoted, long promotedLsn,
			List<String> candidates, List<String> repointed, List<String> streaming, List<String> unreachable,
			String synchronousStandbyNames, long promotedMillis, long totalMillis) {

		/** The report the command prints. */
		String describe() {
			StringBuilder out = new StringBuilder();
			out.append("Failover done in ").append(this.totalMillis).append(" ms.\n");
			out.append("  standbys: ").append(String.join("; ", this.candidates)).append('\n');
			out.append("  promoted: ")
				.append(this.promoted)
				.append(" (highest received WAL position, ")
				.append(lsn(this.promotedLsn))
				.append("), primary after ")
				.append(this.promotedMillis)
				.append(" ms\n");
			out.append("  synchronous_standby_names on ")
				.append(this.promoted)
				.append(": '")
				.append(this.synchronousStandbyNames)
				.append("'\n");
			out.append("  re-pointed at ").append(this.promoted).append(": ").append(this.repointed).append('\n');
			out.append("  streaming from ").append(this.promoted).append(": ").append(this.streaming).append('\n');
			if (this.streaming.isEmpty() && !this.synchronousStandbyNames.isEmpty()) {
				out.append("  WARNING: no standby streams, so every commit waits until one does.\n");
			}
			if (!this.unreachable.isEmpty()) {
				out.append("  unreachable: ").append(this.unreachable).append('\n');
			}
			out.append("  old primary ")
				.append(this.oldPrimary)
				.append(this.oldPrimaryWasRunning ? " was running and has been stopped" : " was already down")
				.append(". It is fenced (standby.signal without an upstream, marked ")
				.append(PostgresNode.FENCE)
				.append(") and STAYS DOWN: the next start of the service re-clones it from ")
				.append(this.promoted)
				.append(" and it rejoins as a standby.\n");
			return out.toString();
		}

	}

}
