package dev.highload.profiles.user;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.highload.profiles.auth.CredentialStore;
import dev.highload.profiles.database.DatabaseProperties;
import dev.highload.profiles.routing.Positioned;
import dev.highload.profiles.routing.ReadRouter;
import dev.highload.profiles.routing.WalPosition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Service;

/**
 * Reading profiles ({@link Registrations} writes them). Every read runs where the
 * {@link ReadRouter} sends it: a replica that has replayed the position the read needs
 * (the client's consistency token, if any), else the primary.
 * <p>
 * <b>A miss by id is final only where the id would show.</b> Without a token, a replica
 * that has not yet applied a registration answers "not found" for it. So a miss on a
 * replica is read again, on a node that has replayed the primary's position from the time
 * by which the id's registration was acknowledged or never will be: the id's own UUIDv7
 * time plus the write timeout (and a second for the clocks of other instances), or now,
 * whichever is earlier. For an id older than a few seconds the replica is almost always
 * past that position already, from its own reads, and the miss is final without another
 * query: a flood of random ids never reaches the primary. Ids that are not version 7, or
 * made in the future, were made by nobody: final at once.
 * <p>
 * What a commit or a read throws is translated by {@code database.DatabaseFailures} into
 * what it means (answered 503 with Retry-After by the failure package); the router
 * repeats a read whose connection broke on another node.
 */
@Service
class UserService implements CredentialStore {

	/** How far other instances' clocks may be ahead of this one's. */
	static final long CLOCK_SKEW_MILLIS = 1000;

	private final ProfileQueries profiles;

	private final ReadRouter router;

	private final Clock clock;

	private final long writeTimeoutMillis;

	private final Counter rechecked;

	UserService(ProfileQueries profiles, ReadRouter router, DatabaseProperties database, Clock clock,
			MeterRegistry meterRegistry) {
		this.profiles = profiles;
		this.router = router;
		this.clock = clock;
		this.writeTimeoutMillis = database.writeTimeout().toMillis();
		this.rechecked = Counter.builder("profiles.reads.rechecked")
			.description("Misses by id on a replica read again on a node that would show the id: "
					+ "the id was made too recently for the first replica to be known to have it")
			.register(meterRegistry);
	}

	/**
	 * The position a client's token must carry after its write: the primary's, read after
	 * the commit.
	 * @return the position, or {@code NONE} if the primary could not be asked (the write
	 * stands; the client then holds no token for it)
	 */
	WalPosition positionAfterWrite() {
		try {
			return this.router.afterWrite();
		}
		catch (RuntimeException ex) {
			return WalPosition.NONE;
		}
	}

	/**
	 * A profile by id.
	 * @param id a user id
	 * @param atLeast the client's token; {@code NONE} without one
	 * @return the profile, with the position the read saw
	 * @throws UserNotFoundException if a node that would show the id does not have it
	 */
	Positioned<UserProfile> get(UUID id, WalPosition atLeast) {
		Positioned<Optional<UserProfile>> read = byId(id, atLeast, this.profiles::findById);
		UserProfile profile = read.value().orElseThrow(() -> new UserNotFoundException(id, read.seen()));
		return new Positioned<>(profile, read.covered(), read.seen(), read.standby());
	}

	/**
	 * A password hash by id, as {@link #get} finds a profile: an unknown id costs one
	 * query, like a known one (the login answers both after a hash check of the same
	 * cost).
	 */
	@Override
	public Positioned<Optional<String>> findPasswordHash(UUID id, WalPosition atLeast) {
		return byId(id, atLeast, this.profiles::findPasswordHash);
	}

	/** One page of a prefix search, from a node that has replayed {@code atLeast}. */
	Positioned<List<EncodedProfile>> search(SearchQuery query, WalPosition atLeast) {
		Optional<PrefixRange> first = PrefixRange.of(query.firstNamePrefix());
		Optional<PrefixRange> last = PrefixRange.of(query.lastNamePrefix());
		if (first.isEmpty() || last.isEmpty()) {
			// Nothing can match; nothing was read.
			return new Positioned<>(List.of(), atLeast, atLeast, false);
		}
		UUID after = (query.after() != null) ? query.after() : SearchQuery.FIRST_PAGE;
		return this.router.read(atLeast, () -> this.profiles.search(first.get(), last.get(), after, query.limit()));
	}

	private <T> Positioned<Optional<T>> byId(UUID id, WalPosition atLeast, Function<UUID, Optional<T>> query) {
		Supplier<Optional<T>> read = () -> query.apply(id);
		Positioned<Optional<T>> first = this.router.read(atLeast, read);
		if (first.value().isPresent() || !first.standby()) {
			return first;
		}
		long made = UuidV7.millis(id);
		long now = this.clock.millis();
		if (made < 0 || made > now + CLOCK_SKEW_MILLIS) {
			return first;
		}
		WalPosition needed = this.router
			.acknowledgedBefore(Math.min(made + this.writeTimeoutMillis + CLOCK_SKEW_MILLIS, now));
		if (first.covered().covers(needed)) {
			return first;
		}
		this.rechecked.increment();
		return this.router.read(needed.max(atLeast), read);
	}

}
