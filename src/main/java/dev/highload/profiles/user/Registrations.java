package dev.highload.profiles.user;

import java.security.MessageDigest;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.highload.profiles.auth.PasswordChecks;
import dev.highload.profiles.auth.PasswordHasher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Registration, at most once per Idempotency-Key.
 * <p>
 * Each registration runs in one transaction on the primary that first takes a
 * transaction-scoped advisory lock on its key, then looks the key up in
 * {@code registration_keys}. A new key is stored in the same transaction as the user, so
 * the key is exactly as durable as the user. A key already stored, and not yet expired
 * ({@link RegistrationProperties#idempotencyKeyTtl()}), answers its user's id again,
 * provided the request has the same fingerprint ({@link RegisterRequest#fingerprint()})
 * and a password that matches the user's hash; otherwise 422. That password check counts
 * as a login of the client to that user ({@link PasswordChecks}): a wrong one is a failed
 * login, and a client the login throttle would refuse is answered 429 without a check. A
 * key whose lock another transaction holds is in flight: 409.
 * <p>
 * A retry must not acknowledge a user that only the primary has: the first attempt may
 * have been answered "Outcome unknown" because its commit was never confirmed by a
 * synchronous standby, and its row is then on the primary alone. So the retry writes too
 * ({@code replayed_at}), and its commit goes through the same write pool and
 * {@code SynchronousCommitCheck} as every write: it returns only once a standby has
 * applied the WAL up to it, the first attempt's commit included, and otherwise the retry
 * is answered "Outcome unknown" in turn.
 */
@Service
@Transactional(readOnly = true)
class Registrations {

	private static final String TRY_LOCK = "SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0))";

	private static final String FIND = """
			SELECT k.fingerprint, k.user_id, u.password_hash,
			       k.created_at >= now() - make_interval(secs => ?) AS live
			FROM registration_keys k JOIN users u ON u.id = k.user_id
			WHERE k.key = ?""";

	private static final String INSERT = "INSERT INTO registration_keys (key, fingerprint, user_id) VALUES (?, ?, ?)";

	private static final String REPLAYED = "UPDATE registration_keys SET replayed_at = now() WHERE key = ?";

	private static final String DELETE = "DELETE FROM registration_keys WHERE key = ?";

	/**
	 * The oldest expired keys, at most a batch, skipping rows another transaction holds
	 * (a registration replacing the key, or another instance's cleanup): neither waits
	 * for the other, and only the rows being deleted are locked, never the table.
	 */
	private static final String DELETE_EXPIRED = """
			DELETE FROM registration_keys WHERE key IN (
			    SELECT key FROM registration_keys
			    WHERE created_at < now() - make_interval(secs => ?)
			    ORDER BY created_at
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED)""";

	private static final RowMapper<StoredKey> STORED_KEY = (rs, row) -> new StoredKey(rs.getBytes(1),
			rs.getObject(2, UUID.class), rs.getString(3), rs.getBoolean(4));

	private final UserRepository users;

	private final JdbcClient jdbc;

	private final PasswordHasher passwordHasher;

	private final PasswordChecks passwordChecks;

	private final Clock clock;

	private final double ttlSeconds;

	private final Counter replays;

	Registrations(UserRepository users, DataSource dataSource, PasswordHasher passwordHasher,
			PasswordChecks passwordChecks, Clock clock, RegistrationProperties properties,
			MeterRegistry meterRegistry) {
		this.users = users;
		this.jdbc = JdbcClient.create(dataSource);
		this.passwordHasher = passwordHasher;
		this.passwordChecks = passwordChecks;
		this.clock = clock;
		this.ttlSeconds = properties.idempotencyKeyTtl().toMillis() / 1000.0;
		this.replays = Counter.builder("profiles.registrations.replayed")
			.description("Registrations answered with the user an earlier request with the same Idempotency-Key made")
			.register(meterRegistry);
	}

	/**
	 * Registers a user, or answers the user an earlier request with the same key
	 * registered. The password is hashed before the first statement; the lazy connection
	 * proxy takes no connection until then, so none is held while hashing. A retry's
	 * password is checked inside the transaction, under the key's lock: the connection is
	 * held for that one Argon2id check, which only retries with a stored key cost.
	 * @param request the registration
	 * @param key its key, sent or made by the server
	 * @param remoteAddress the client's address: a retry's password check counts as its
	 * login
	 * @return the user's id
	 * @throws IdempotencyKeyException 409 while another request holds the key, 422 if the
	 * key stands for another registration
	 */
	@Transactional
	UUID register(RegisterRequest request, IdempotencyKey key, String remoteAddress) {
		String hash = this.passwordHasher.hash(request.password());
		byte[] fingerprint = request.fingerprint();
		if (!this.jdbc.sql(TRY_LOCK).param(key.value()).query(Boolean.class).single()) {
			throw IdempotencyKeyException.inProgress();
		}
		// A statement of its own, after the lock: its snapshot then sees the row of a
		// transaction that held the key until just before (read committed). In the
		// lock's statement it could miss that row, and the insert would then fail on it.
		Optional<StoredKey> stored = this.jdbc.sql(FIND)
			.params(this.ttlSeconds, key.value())
			.query(STORED_KEY)
			.optional();
		if (stored.isPresent() && stored.get().live()) {
			Optional<UUID> replayed = replay(stored.get(), request, fingerprint, key, remoteAddress);
			if (replayed.isPresent()) {
				return replayed.get();
			}
		}
		else if (stored.isPresent()) {
			this.jdbc.sql(DELETE).param(key.value()).update();
		}
		UUID id = UuidV7.next();
		this.users.save(new User(id, request.firstName(), request.secondName(), request.birthdate(),
				request.biography(), request.city(), hash, this.clock.instant()));
		this.jdbc.sql(INSERT).params(key.value(), fingerprint, id).update();
		return id;
	}

	/**
	 * The stored user, once this transaction has written to the key's row: without that
	 * write its commit would wait for no standby.
	 * @return the user, or empty if the cleanup deleted the key meanwhile (it expired
	 * between the two statements): the request is then a new registration
	 */
	private Optional<UUID> replay(StoredKey stored, RegisterRequest request, byte[] fingerprint, IdempotencyKey key,
			String remoteAddress) {
		// The cheap comparison first: a different body costs no password hash and no
		// login attempt.
		if (!MessageDigest.isEqual(stored.fingerprint(), fingerprint)
				|| !this.passwordChecks.matches(PasswordHasher.Work.REGISTRATION, stored.userId(), remoteAddress,
						request.password(), stored.passwordHash())) {
			throw IdempotencyKeyException.reused();
		}
		if (this.jdbc.sql(REPLAYED).param(key.value()).update() == 0) {
			return Optional.empty();
		}
		this.replays.increment();
		return Optional.of(stored.userId());
	}

	/**
	 * Deletes one batch of expired keys, in a transaction of its own.
	 * @param batch the most keys to delete
	 * @return how many were deleted; fewer than {@code batch} when no more are expired
	 * (or the rest are held by other transactions)
	 */
	@Transactional
	int deleteExpiredKeys(int batch) {
		return this.jdbc.sql(DELETE_EXPIRED).params(this.ttlSeconds, batch).update();
	}

	/**
	 * A stored key with its user's password hash.
	 *
	 * @param fingerprint the first request's {@link RegisterRequest#fingerprint()}
	 * @param userId the user it registered
	 * @param passwordHash that user's Argon2id hash
	 * @param live whether it has not expired yet
	 */
	private record StoredKey(byte[] fingerprint, UUID userId, String passwordHash, boolean live) {

	}

}
