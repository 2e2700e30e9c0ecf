package dev.highload.profiles.routing;

import java.sql.SQLException;
import java.util.function.Supplier;

import dev.highload.profiles.database.DatabaseFailures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Where every read runs. {@link #read} chooses a node ({@link NodeChoice}) and runs the
 * read's JDBC code with the application's DataSource, the {@link ReadRoutingDataSource},
 * keyed to that node; a read whose connection broke is repeated once on another node, and
 * the node gets no reads until its probe answers again ({@link Nodes}).
 * <p>
 * A read reports the node's position with its result ({@link NodePosition#report}); from
 * it the router learns where each node is, and the client gets its next token. A read
 * that reports none (a repository method, say) costs one query more, for the position,
 * after its own.
 * <h2>Everything else that decides where a statement goes</h2> This is the only place
 * that explains it; the other classes only do their part.
 * <ul>
 * <li>Every read of a request (a profile, a search, the password hash of a login) runs in
 * {@link #read}, through the user service: single statements on auto-commit connections,
 * with no transaction around them.</li>
 * <li>Outside a routed read the application's DataSource is the write path
 * ({@code database.WritePath}): a write, and whatever its transaction reads (a
 * registration looks its key up under an advisory lock), runs in an
 * {@code @Transactional} service method on the write pool, whose URL lists every node
 * with {@code targetServerType=primary}. It always reaches the primary, and finds a
 * promoted one by itself; {@code database.ReadOnlyNodeEviction} keeps it there after a
 * demotion.</li>
 * <li>A transaction begun inside a routed read (a {@code @Transactional(readOnly = true)}
 * method) runs on the read's node. A routed read begun inside a transaction is refused:
 * its statements would run on the transaction's connection, wherever that is.</li>
 * <li>With {@code app.db.read-from-replicas=false} there are no read pools, and every
 * read runs on the write pool: the primary.</li>
 * <li>With {@code app.db.routing=balanced} each replica address is an endpoint that
 * balances connections over several replicas (a Kubernetes Service): a read's coverage is
 * its own connection's ({@link BalancedConnections}), and a read whose connection is
 * behind its token, or that reported no position, runs on the primary's read pool.</li>
 * <li>Flyway and the seeder connect as the schema's owner, outside the pools
 * ({@code database.SchemaOwnerConnections}); the replication metrics read the primary's
 * {@code pg_stat_replication} through the write pool.</li>
 * </ul>
 */
public final class ReadRouter {

	private final Nodes nodes;

	private final NodeChoice choice;

	private final KnownPositions positions;

	private final Counter retried;

	private final Counter behind;

	private final Counter checked;

	ReadRouter(Nodes nodes, NodeChoice choice, KnownPositions positions, MeterRegistry meterRegistry) {
		this.nodes = nodes;
		this.choice = choice;
		this.positions = positions;
		this.retried = Counter.builder("profiles.reads.retried")
			.description("Reads repeated on another node after their connection broke")
			.register(meterRegistry);
		this.behind = Counter.builder("profiles.reads.behind")
			.description("Reads whose connection to a balanced replica endpoint reached a replica behind "
					+ "the position they needed, or that could not tell, read on the primary instead")
			.register(meterRegistry);
		this.checked = Counter.builder("profiles.reads.checked")
			.description("Reads on a balanced replica endpoint that asked their connection for its "
					+ "position first: nothing known of it covered the position they needed")
			.register(meterRegistry);
	}

	/**
	 * Runs {@code read} on a node that has replayed {@code atLeast}: every connection the
	 * application's DataSource gives it is that node's.
	 * @param atLeast the position the read must see; {@link WalPosition#NONE} for any
	 * @param read the read's JDBC code; it may run twice, on two nodes
	 * @param <T> the result type
	 * @return the result with the positions that bound its snapshot
	 * @throws IllegalStateException inside a transaction
	 */
	public <T> Positioned<T> read(WalPosition atLeast, Supplier<T> read) {
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("A routed read inside a transaction would run on the transaction's "
					+ "connection; begin the transaction inside the read");
		}
		WalPosition required = this.positions.plausible(atLeast);
		Node node = this.choice.choose(required, null);
		try {
			return runOn(node, required, read);
		}
		catch (DataAccessResourceFailureException ex) {
			if (node.balanced != null && isBehind(ex)) {
				// Not a fault of the endpoint: its other replica may be ahead. This read
				// goes where every acknowledged write is.
				this.behind.increment();
				return runOn(this.nodes.primaryForReads(node), required, read);
			}
			if (!DatabaseFailures.isBrokenConnection(ex) && !(ex.getCause() instanceof NodeWentBack)) {
				throw ex;
			}
			this.retried.increment();
			node.down(ex);
			return runOn(this.choice.choose(required, node), required, read);
		}
	}

	/**
	 * A position that bounds every write acknowledged before {@code millis} (a wall-clock
	 * instant), from the primary's samples; the newest position known if the primary
	 * cannot be asked.
	 */
	public WalPosition acknowledgedBefore(long millis) {
		return this.positions.acknowledgedBefore(millis);
	}

	/**
	 * The position a client's token after a write must carry: the primary's, sampled
	 * after the write was acknowledged. Shared with concurrent writers.
	 * @return the position
	 * @throws RuntimeException if the primary did not answer
	 */
	public WalPosition afterWrite() {
		return this.positions.afterWrite();
	}

	private <T> Positioned<T> runOn(Node node, WalPosition required, Supplier<T> read) {
		if (node.balanced != null) {
			return runOnBalanced(node, required, read);
		}
		boolean primary = node == this.nodes.primary();
		WalPosition covered = primary ? required : node.known().max(required);
		RoutedRead routed = RoutedRead.begin(node, required);
		T value;
		try {
			value = read.get();
		}
		finally {
			routed.end();
		}
		NodePosition.Sample seen = routed.reported() ? new NodePosition.Sample(routed.seen(), routed.standby())
				: positionAfter(node);
		if (!primary && seen.position().compareTo(covered) < 0) {
			// A replica behind a position it had reached: rebuilt or rewound. What it
			// answered may miss what it showed before.
			node.reset(seen.position());
			throw new DataAccessResourceFailureException(node.name + " went back",
					new NodeWentBack(node.name + " is at " + seen.position() + ", below " + covered));
		}
		node.observed(seen.position(), seen.standby());
		this.positions.seen(seen.position());
		return new Positioned<>(value, covered, seen.position(), seen.standby());
	}

	/**
	 * A read on a balanced replica endpoint: what it covers is what its own connection
	 * had replayed before it began ({@link BalancedConnections}), never what another
	 * connection showed. A read that reported no position cannot be bounded by asking the
	 * endpoint afterwards (that may be another replica), so it is read again on the
	 * primary.
	 */
	private <T> Positioned<T> runOnBalanced(Node node, WalPosition required, Supplier<T> read) {
		RoutedRead routed = RoutedRead.begin(node, required);
		T value;
		try {
			value = read.get();
		}
		finally {
			routed.end();
			if (routed.wasChecked()) {
				this.checked.increment();
			}
		}
		if (!routed.reported() || routed.connection() == null) {
			this.behind.increment();
			return runOn(this.nodes.primaryForReads(node), required, read);
		}
		WalPosition covered = routed.connectionCovered().max(required);
		WalPosition seen = routed.seen();
		if (seen.compareTo(covered) < 0) {
			// This connection's replica went back (rebuilt or rewound): what it answered
			// may
			// miss what it showed before. The endpoint's other connections are not at
			// fault.
			node.balanced.forget(routed.connection());
			this.behind.increment();
			return runOn(this.nodes.primaryForReads(node), required, read);
		}
		routed.connectionSaw(seen.offset());
		node.observed(seen, routed.standby());
		this.positions.seen(seen);
		return new Positioned<>(value, covered, seen, routed.standby());
	}

	private static boolean isBehind(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof BalancedConnections.Behind) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The node's position after a read that reported none: at least what its snapshot
	 * held, so a token made of it keeps the next read from showing less.
	 */
	private static NodePosition.Sample positionAfter(Node node) {
		try {
			return NodePosition.query(node.pool);
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not read the position of " + node.name, ex);
		}
	}

	/** A replica answered from behind a position it had already reached. */
	private static final class NodeWentBack extends RuntimeException {

		NodeWentBack(String message) {
			super(message, null, false, false);
		}

	}

}
