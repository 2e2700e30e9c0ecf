package dev.highload.profiles.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class PrimaryPositionsTests {

	private final AtomicInteger fetches = new AtomicInteger();

	private final AtomicLong primary = new AtomicLong(1_000_000);

	@Test
	void aWriteIsBoundedByTheFirstSampleTakenAfterIt() {
		PrimaryPositions positions = new PrimaryPositions(this::fetch, 5);
		positions.record(1_000, new WalPosition(10));
		positions.record(2_000, new WalPosition(20));
		positions.record(3_000, new WalPosition(30));
		assertThat(positions.boundingWritesBefore(500)).isEqualTo(new WalPosition(10));
		assertThat(positions.boundingWritesBefore(1_000)).isEqualTo(new WalPosition(10));
		assertThat(positions.boundingWritesBefore(1_001)).isEqualTo(new WalPosition(20));
		assertThat(positions.boundingWritesBefore(3_000)).isEqualTo(new WalPosition(30));
		assertThat(this.fetches).as("no fetch while a sample is recent enough").hasValue(0);
		// Later than every sample: only a fresh position bounds it.
		long now = System.currentTimeMillis();
		assertThat(positions.boundingWritesBefore(now)).isEqualTo(new WalPosition(1_000_008));
		assertThat(this.fetches).hasValue(1);
		assertThat(positions.fresh(now)).as("the fetched position, kept").isEqualTo(new WalPosition(1_000_008));
		assertThat(this.fetches).hasValue(1);
	}

	@Test
	void anHourOfSamplesIsKeptTheOldestDropped() {
		PrimaryPositions positions = new PrimaryPositions(this::fetch, 5);
		for (int i = 0; i < PrimaryPositions.CAPACITY + 10; i++) {
			positions.record(1_000L * i, new WalPosition(i + 1));
		}
		// The ten oldest are gone: the oldest kept bounds everything before it.
		assertThat(positions.boundingWritesBefore(0)).isEqualTo(new WalPosition(11));
		assertThat(positions.boundingWritesBefore(1_000L * (PrimaryPositions.CAPACITY + 9)))
			.isEqualTo(new WalPosition(PrimaryPositions.CAPACITY + 10));
		assertThat(this.fetches).hasValue(0);
	}

	@Test
	void aSampleFromBeforeTheNewestIsDropped() {
		PrimaryPositions positions = new PrimaryPositions(this::fetch, 5);
		positions.record(2_000, new WalPosition(20));
		positions.record(1_000, new WalPosition(10));
		assertThat(positions.boundingWritesBefore(0)).isEqualTo(new WalPosition(20));
	}

	@Test
	void concurrentCallersShareFetchesAtMostOnePerSpacing() throws Exception {
		PrimaryPositions positions = new PrimaryPositions(this::fetch, 20);
		int callers = 64;
		ExecutorService pool = Executors.newFixedThreadPool(16);
		CountDownLatch start = new CountDownLatch(1);
		long began = System.currentTimeMillis();
		try {
			List<Future<WalPosition>> results = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				results.add(pool.submit(() -> {
					start.await();
					return positions.fresh(System.currentTimeMillis());
				}));
			}
			start.countDown();
			for (Future<WalPosition> result : results) {
				assertThat(result.get().offset()).isGreaterThanOrEqualTo(1_000_000);
			}
		}
		finally {
			pool.shutdownNow();
		}
		long elapsed = System.currentTimeMillis() - began;
		assertThat(this.fetches.get()).as("fetches for %d callers in %d ms", callers, elapsed)
			.isBetween(1, (int) (elapsed / 20) + 1);
	}

	@Test
	void aPositionFetchedBeforeTheCallersInstantIsNotReused() {
		PrimaryPositions positions = new PrimaryPositions(this::fetch, 0);
		WalPosition first = positions.fresh(System.currentTimeMillis());
		WalPosition second = positions.fresh(System.currentTimeMillis() + 1);
		assertThat(second.compareTo(first)).isPositive();
		assertThat(this.fetches).hasValue(2);
	}

	@Test
	void aPrimaryThatCannotBeAskedFailsTheCallerNotTheSamples() {
		PrimaryPositions positions = new PrimaryPositions(() -> {
			throw new IllegalStateException("primary down");
		}, 5);
		positions.record(1_000, new WalPosition(10));
		assertThat(positions.boundingWritesBefore(900)).isEqualTo(new WalPosition(10));
		assertThatIllegalStateException().isThrownBy(() -> positions.boundingWritesBefore(System.currentTimeMillis()));
	}

	private WalPosition fetch() {
		this.fetches.incrementAndGet();
		return new WalPosition(this.primary.addAndGet(8));
	}

}
