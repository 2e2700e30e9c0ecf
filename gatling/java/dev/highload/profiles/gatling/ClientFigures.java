package dev.highload.profiles.gatling;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the virtual users saw as clients, beside the latency of each request: how often a
 * registration was sent again with its {@code Idempotency-Key}, and whether a user who
 * had just registered found themselves. Printed in the run's summary by
 * {@link MonitoredSimulation}; only simulations that register have anything to print.
 */
final class ClientFigures {

	private static final AtomicLong registered = new AtomicLong();

	private static final AtomicLong retries = new AtomicLong();

	private static final AtomicLong gaveUp = new AtomicLong();

	private static final AtomicLong ownProfiles = new AtomicLong();

	private static final AtomicLong ownProfileMisses = new AtomicLong();

	private static final AtomicLong ownSearches = new AtomicLong();

	private static final AtomicLong ownSearchMisses = new AtomicLong();

	private ClientFigures() {
	}

	/**
	 * One registration settled.
	 * @param attempts the requests it took
	 * @param succeeded whether the last one answered the user's id
	 */
	static void registration(int attempts, boolean succeeded) {
		retries.addAndGet(attempts - 1);
		(succeeded ? registered : gaveUp).incrementAndGet();
	}

	/**
	 * A read of the user's own profile right after the registration.
	 * @param miss whether it answered 404
	 */
	static void ownProfile(boolean miss) {
		ownProfiles.incrementAndGet();
		if (miss) {
			ownProfileMisses.incrementAndGet();
		}
	}

	/**
	 * A search by the user's own names right after the registration.
	 * @param miss whether it answered a page without the user
	 */
	static void ownSearch(boolean miss) {
		ownSearches.incrementAndGet();
		if (miss) {
			ownSearchMisses.incrementAndGet();
		}
	}

	/**
	 * The read-your-writes misses so far: own profiles not found and own searches without
	 * the user.
	 */
	static long readYourWritesMisses() {
		return ownProfileMisses.get() + ownSearchMisses.get();
	}

	/** The summary's lines, or an empty string when nobody registered. */
	static String summary() {
		if (registered.get() + gaveUp.get() == 0) {
			return "";
		}
		StringBuilder s = new StringBuilder(
				String.format("registrations: %d registered, %d retries with the same Idempotency-Key, %d given up%n",
						registered.get(), retries.get(), gaveUp.get()));
		if (ownProfiles.get() + ownSearches.get() > 0) {
			s.append(String.format(
					"read-your-writes misses: %d (own profile 404: %d of %d reads; own id not on the search page: %d of %d searches)%n",
					readYourWritesMisses(), ownProfileMisses.get(), ownProfiles.get(), ownSearchMisses.get(),
					ownSearches.get()));
		}
		return s.toString();
	}

}
