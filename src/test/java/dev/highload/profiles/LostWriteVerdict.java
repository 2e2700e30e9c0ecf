package dev.highload.profiles;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The verdict of the lost-write check's retry phase ({@link LostWriteCheck}): every
 * registration carried an Idempotency-Key, and every one that was not answered 200 was
 * sent again with the same key and body until it was. Afterwards each key must map to
 * exactly one user on the new primary: the one its 200 named, found both by its marker
 * (the biography) and through {@code registration_keys.user_id}.
 *
 * @param keys keys sent
 * @param acknowledged keys answered 200, by the first attempt or by a retry
 * @param acknowledgedByRetry of those, answered 200 only by a retry
 * @param retriedKeys keys that needed at least one retry
 * @param retries retries sent in all
 * @param maxRetries the most retries one key needed
 * @param replays retries answered with a user that an earlier attempt of the key had
 * registered (the answer's UUIDv7 time precedes the retry)
 * @param unresolved keys never answered 200 before their deadline: a failure
 * @param lost acknowledged keys whose acknowledged user is missing on the new primary
 * @param duplicates user rows beyond the first for one key's marker, plus keys whose 200
 * answers named two different users
 * @param unmapped acknowledged keys without a {@code registration_keys} row naming their
 * one user
 */
record LostWriteVerdict(int keys, int acknowledged, int acknowledgedByRetry, int retriedKeys, int retries,
		int maxRetries, int replays, int unresolved, int lost, int duplicates, int unmapped) {

	/**
	 * What the client saw for one key.
	 *
	 * @param key the Idempotency-Key
	 * @param marker the biography its body carried
	 * @param retries how often it was sent again after the first attempt
	 * @param replays how many of those retries were answered with an earlier attempt's
	 * user
	 * @param userIds every {@code user_id} a 200 for this key named, in order; empty if
	 * none was ever answered 200
	 */
	record Sent(String key, String marker, int retries, int replays, List<String> userIds) {

		boolean acknowledged() {
			return !this.userIds.isEmpty();
		}

	}

	/**
	 * @param sent what the client saw, one per key
	 * @param usersByMarker the ids of the user rows on the new primary, by marker
	 * @param userByKey {@code registration_keys.user_id} on the new primary, by key
	 */
	static LostWriteVerdict of(Collection<Sent> sent, Map<String, List<String>> usersByMarker,
			Map<String, String> userByKey) {
		int acknowledged = 0;
		int acknowledgedByRetry = 0;
		int retriedKeys = 0;
		int retries = 0;
		int maxRetries = 0;
		int replays = 0;
		int unresolved = 0;
		int lost = 0;
		int duplicates = 0;
		int unmapped = 0;
		for (Sent key : sent) {
			retries += key.retries();
			maxRetries = Math.max(maxRetries, key.retries());
			replays += key.replays();
			if (key.retries() > 0) {
				retriedKeys++;
			}
			List<String> rows = usersByMarker.getOrDefault(key.marker(), List.of());
			duplicates += Math.max(0, rows.size() - 1);
			if (!key.acknowledged()) {
				unresolved++;
				continue;
			}
			acknowledged++;
			if (key.retries() > 0) {
				acknowledgedByRetry++;
			}
			Set<String> answered = new HashSet<>(key.userIds());
			if (answered.size() > 1) {
				duplicates++;
			}
			String user = key.userIds().get(0);
			if (!rows.contains(user)) {
				lost++;
			}
			if (rows.size() != 1 || !rows.get(0).equals(userByKey.get(key.key()))) {
				unmapped++;
			}
		}
		return new LostWriteVerdict(sent.size(), acknowledged, acknowledgedByRetry, retriedKeys, retries, maxRetries,
				replays, unresolved, lost, duplicates, unmapped);
	}

	/** Every key answered 200 and maps to exactly one user, the one it was answered. */
	boolean holds() {
		return this.unresolved == 0 && this.lost == 0 && this.duplicates == 0 && this.unmapped == 0;
	}

	String describe() {
		return """
				  retry phase (every request with an Idempotency-Key, retried until 200)
				    keys                   %d
				    keys acknowledged      %d (%d only by a retry)
				    keys retried           %d (%d retries, at most %d for one key, %d answered by a replay)
				    never acknowledged     %d  (no 200 before the key's deadline)
				    lost                   %d  (acknowledged, its user missing on the new primary)
				    duplicates             %d  (more than one user for one key)
				    unmapped               %d  (registration_keys does not name the key's one user)
				    verdict                %s
				""".formatted(this.keys, this.acknowledged, this.acknowledgedByRetry, this.retriedKeys, this.retries,
				this.maxRetries, this.replays, this.unresolved, this.lost, this.duplicates, this.unmapped,
				holds() ? "each key maps to exactly one user" : "FAILED");
	}

}
