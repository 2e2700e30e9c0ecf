package dev.highload.profiles.user;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Idempotency-Keys of registrations ({@code app.registration.*}; docs/api.md,
 * "Idempotency-Key").
 *
 * @param idempotencyKeyTtl how long a key stands for its registration, counted from the
 * registration by the primary's clock: within it a retry with the key gets the first
 * answer; after it the key is free again and a request with it registers anew. Published
 * to clients in docs/api.md and the OpenAPI document, so a change should be announced. 24
 * hours covers a client that retries across a long outage or a restart
 * @param keyCleanupInterval the time between two runs of the cleanup that deletes expired
 * keys; a key may outlive its expiry by about this much, but is no longer honoured
 * @param keyCleanupBatch keys deleted per transaction by the cleanup; a run repeats
 * batches while they come back full, so the table's expired rows go in one run however
 * many there are, each transaction short
 */
@ConfigurationProperties("app.registration")
public record RegistrationProperties(@DefaultValue("24h") Duration idempotencyKeyTtl,
		@DefaultValue("1m") Duration keyCleanupInterval, @DefaultValue("1000") int keyCleanupBatch) {

	public RegistrationProperties {
		if (idempotencyKeyTtl.toSeconds() < 1) {
			throw new IllegalArgumentException(
					"app.registration.idempotency-key-ttl must be at least 1s, was " + idempotencyKeyTtl);
		}
		if (keyCleanupInterval.toMillis() < 1) {
			throw new IllegalArgumentException(
					"app.registration.key-cleanup-interval must be positive, was " + keyCleanupInterval);
		}
		if (keyCleanupBatch < 1) {
			throw new IllegalArgumentException(
					"app.registration.key-cleanup-batch must be positive, was " + keyCleanupBatch);
		}
	}

}
