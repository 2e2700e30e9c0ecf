package dev.highload.profiles.user;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class UuidV7Tests {

	private static final long MAX_MILLIS = (1L << 48) - 1;

	@ParameterizedTest
	@ValueSource(longs = { 0, 1, 1_704_067_200_000L, 1_750_000_000_123L, (1L << 47) - 1, 1L << 47, MAX_MILLIS })
	void timestampBitsAreTheMillis(long millis) {
		for (long rand : new long[] { 0, -1, 0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL }) {
			UUID id = UuidV7.of(millis, rand, rand);
			assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(millis);
			assertThat(id.toString()).startsWith(hex48(millis));
		}
	}

	@Test
	void versionIsSevenAndVariantIsIetfWhateverTheRandomBits() {
		SplittableRandom random = new SplittableRandom(7);
		List<long[]> inputs = new ArrayList<>(List.of(new long[] { 0, 0 }, new long[] { -1, -1 },
				new long[] { Long.MIN_VALUE, Long.MAX_VALUE }, new long[] { Long.MAX_VALUE, Long.MIN_VALUE }));
		for (int i = 0; i < 1000; i++) {
			inputs.add(new long[] { random.nextLong(), random.nextLong() });
		}
		for (long[] rand : inputs) {
			UUID id = UuidV7.of(1_750_000_000_000L, rand[0], rand[1]);
			assertThat(id.version()).isEqualTo(7);
			assertThat(id.variant()).isEqualTo(2);
			assertThat(id.toString().charAt(14)).isEqualTo('7');
			assertThat(id.toString().charAt(19)).isIn('8', '9', 'a', 'b');
		}
	}

	@Test
	void randomBitsFillTheRest() {
		long randA = 0x0123_4567_89AB_CDEFL;
		long randB = 0xFEDC_BA98_7654_3210L;
		UUID id = UuidV7.of(0, randA, randB);
		assertThat(id.getMostSignificantBits() & 0x0FFFL).isEqualTo(randA & 0x0FFFL);
		assertThat(id.getLeastSignificantBits() & 0x3FFF_FFFF_FFFF_FFFFL).isEqualTo(randB & 0x3FFF_FFFF_FFFF_FFFFL);
		assertThat(UuidV7.of(0, randA, randB)).isEqualTo(id);
		assertThat(UuidV7.of(0, randA + 1, randB)).isNotEqualTo(id);
		assertThat(UuidV7.of(0, randA, randB + 1)).isNotEqualTo(id);
	}

	@Test
	void idsOfIncreasingMillisSortIncreasingly() {
		// Strings of lowercase hex sort like PostgreSQL's uuid (unsigned bytes);
		// UUID.compareTo compares signed longs, so it is not used here.
		long[] millis = { 0, 1, 2, 1_704_067_200_000L, 1_704_067_200_001L, 1_750_000_000_000L, (1L << 47) - 1, 1L << 47,
				MAX_MILLIS - 1, MAX_MILLIS };
		String previous = null;
		for (long m : millis) {
			String smallest = UuidV7.of(m, 0, 0).toString();
			String largest = UuidV7.of(m, -1, -1).toString();
			assertThat(smallest).isLessThanOrEqualTo(largest);
			if (previous != null) {
				assertThat(smallest).as("the smallest id at %d after the largest before it", m).isGreaterThan(previous);
			}
			previous = largest;
		}
	}

	@Test
	void idsOfIncreasingMillisWithRandomBitsSortIncreasingly() {
		SplittableRandom random = new SplittableRandom(42);
		long millis = 1_750_000_000_000L;
		String previous = UuidV7.of(millis, random.nextLong(), random.nextLong()).toString();
		for (int i = 0; i < 10_000; i++) {
			millis += 1 + random.nextInt(3);
			String id = UuidV7.of(millis, random.nextLong(), random.nextLong()).toString();
			assertThat(id).isGreaterThan(previous);
			previous = id;
		}
	}

	@Test
	void nextGivesDistinctVersionSevenIdsOfNow() {
		long before = System.currentTimeMillis();
		Set<UUID> ids = new HashSet<>();
		for (int i = 0; i < 10_000; i++) {
			ids.add(UuidV7.next());
		}
		long after = System.currentTimeMillis();
		assertThat(ids).hasSize(10_000);
		assertThat(ids).allSatisfy((id) -> {
			assertThat(id.version()).isEqualTo(7);
			assertThat(id.variant()).isEqualTo(2);
			assertThat(id.getMostSignificantBits() >>> 16).isBetween(before, after);
		});
	}

	private static String hex48(long millis) {
		String hex = String.format("%012x", millis);
		return hex.substring(0, 8) + "-" + hex.substring(8);
	}

}
