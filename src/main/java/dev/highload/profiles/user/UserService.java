package dev.highload.profiles.user;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import dev.highload.profiles.auth.CredentialStore;
import dev.highload.profiles.routing.DatabaseFailures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Profiles. Read-only transactions (the class default) run on the replicas; writing
 * methods are annotated {@code @Transactional} and run on the primary.
 * <p>
 * Point reads are read-your-writes: a replica that has not yet applied a just-committed
 * registration (possible under {@code ANY 1}, where only one replica must have applied
 * it) answers "not found", and the read is repeated on the primary before any 404.
 * <p>
 * A point read or a search that fails because its pooled connection is broken (the
 * replica went down or stopped answering: {@link DatabaseFailures#isBrokenConnection}) is
 * repeated once on a fresh connection, which the pool takes from a node that answers: the
 * first request after a replica dies need not fail. The pool has evicted the broken
 * connection by then. A read the server cancelled because it ran past the read pool's
 * statement timeout (57014) is not broken and not repeated: 503 with Retry-After.
 */
@Service
@Transactional(readOnly = true)
public class UserService implements CredentialStore {

	/**
	 * The transaction manager's bean name, named on the hot reads: given a name, the
	 * transaction interceptor resolves the manager once and caches it; without one it
	 * scans the target class for a {@code @Qualifier} on every call (Spring Framework
	 * 7.0), which cost about 3 % of a point read's CPU in the profile.
	 */
	static final String TRANSACTION_MANAGER = "transactionManager";

	private final UserRepository users;

	private final ProfileQueries profiles;

	private final TransactionTemplate onPrimary;

	private final Counter primaryFallbacks;

	private final TransactionTemplate onReplicaAgain;

	private final Counter readRetries;

	UserService(UserRepository users, ProfileQueries profiles, PlatformTransactionManager transactionManager,
			MeterRegistry meterRegistry) {
		this.users = users;
		this.profiles = profiles;
		this.onPrimary = new TransactionTemplate(transactionManager);
		this.onPrimary.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.primaryFallbacks = Counter.builder("profiles.reads.primary.fallback")
			.description("Point reads that missed on a replica and were repeated on the primary")
			.register(meterRegistry);
		// A new read-only scope: the broken connection of the first attempt stays bound
		// to the caller's scope, which is suspended meanwhile.
		this.onReplicaAgain = new TransactionTemplate(transactionManager);
		this.onReplicaAgain.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.onReplicaAgain.setReadOnly(true);
		this.readRetries = Counter.builder("profiles.reads.retried")
			.description("Reads repeated on a fresh connection after their connection broke")
			.register(meterRegistry);
	}

	/**
	 * A point read. {@code SUPPORTS} with {@code readOnly}: no physical transaction (the
	 * read is one statement), yet a read-only scope, which routing sends to a replica.
	 * @param id a user id
	 * @return the profile, from a replica or, if the replica has not seen it, the primary
	 * @throws UserNotFoundException if neither has it
	 */
	@Transactional(transactionManager = TRANSACTION_MANAGER, readOnly = true, propagation = Propagation.SUPPORTS)
	public UserProfile get(UUID id) {
		Supplier<Optional<UserProfile>> read = () -> this.profiles.findById(id);
		return readYourWrites(retriedOnce(read), read).orElseThrow(() -> new UserNotFoundException(id));
	}

	/**
	 * Read on the primary, always: one query whether or not the id exists. Through a
	 * replica, an unknown id cost a second query (the read-your-writes retry on the
	 * primary), and logins for unknown ids measured about 0.5 to 1 ms slower than wrong
	 * passwords (docs/reliability.md, "Hostile input"). Logins are few (each costs a
	 * password hash), so the primary can take them.
	 */
	@Override
	public Optional<String> findPasswordHash(UUID id) {
		return this.onPrimary.execute((status) -> this.users.findPasswordHashById(id));
	}

	/**
	 * One statement, like {@link #get}: a read-only scope without a physical transaction.
	 */
	@Transactional(transactionManager = TRANSACTION_MANAGER, readOnly = true, propagation = Propagation.SUPPORTS)
	List<EncodedProfile> search(SearchQuery query) {
		Optional<PrefixRange> first = PrefixRange.of(query.firstNamePrefix());
		Optional<PrefixRange> last = PrefixRange.of(query.lastNamePrefix());
		if (first.isEmpty() || last.isEmpty()) {
			return List.of();
		}
		UUID after = (query.after() != null) ? query.after() : SearchQuery.FIRST_PAGE;
		return retriedOnce(() -> this.profiles.search(first.get(), last.get(), after, query.limit())).get();
	}

	private <T> Optional<T> readYourWrites(Supplier<Optional<T>> onReplicas, Supplier<Optional<T>> read) {
		Optional<T> onReplica = onReplicas.get();
		if (onReplica.isPresent()) {
			return onReplica;
		}
		this.primaryFallbacks.increment();
		return this.onPrimary.execute((status) -> read.get());
	}

	/**
	 * The read, repeated once in a new read-only scope if its connection broke. Only for
	 * reads without a physical transaction ({@code SUPPORTS}): a transaction on a broken
	 * connection would fail at its commit whatever the retry did.
	 */
	private <T> Supplier<T> retriedOnce(Supplier<T> read) {
		return () -> {
			try {
				return read.get();
			}
			catch (DataAccessResourceFailureException ex) {
				if (!DatabaseFailures.isBrokenConnection(ex)) {
					throw ex;
				}
				this.readRetries.increment();
				return this.onReplicaAgain.execute((status) -> read.get());
			}
		};
	}

}
