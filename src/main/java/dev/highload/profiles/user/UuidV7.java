package dev.highload.profiles.user;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Time-ordered UUIDs (RFC 9562 version 7): a 48-bit Unix-millisecond timestamp, then 74
 * random bits. New rows land at the right edge of the primary-key index, and ordering by
 * id is ordering by creation time.
 */
public final class UuidV7 {

	private static final SecureRandom random = new SecureRandom();

	private UuidV7() {
	}

	/** A new id for now, with random bits from a secure source. */
	public static UUID next() {
		return of(System.currentTimeMillis(), random.nextLong(), random.nextLong());
	}

	/**
	 * An id from given parts, for deterministic generators.
	 * @param epochMillis the timestamp
	 * @param randA source of the 12 random bits after the version
	 * @param randB source of the 62 random bits after the variant
	 * @return the id
	 */
	public static UUID of(long epochMillis, long randA, long randB) {
		long msb = (epochMillis << 16) | 0x7000L | (randA & 0x0FFFL);
		long lsb = (randB & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
		return new UUID(msb, lsb);
	}

	/**
	 * When a version 7 id was made.
	 * @param id an id
	 * @return its Unix time in milliseconds, or -1 if it is not a version 7 UUID
	 */
	public static long millis(UUID id) {
		return (id.version() == 7 && id.variant() == 2) ? id.getMostSignificantBits() >>> 16 : -1;
	}

}
