package dev.highload.profiles.gatling;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Where the virtual users' inputs come from: ids of seeded users, prefix pairs from the
 * seeded name distribution, and fresh registrations.
 */
final class Feeders {

	private static final String[] FIRST = { "Alex", "Maria", "Ivan", "Olga", "John", "Anna", "Peter", "Elena", "Mark",
			"Irina" };

	private static final String[] LAST = { "Smith", "Ivanov", "Brown", "Petrova", "Jones", "Sokolov", "Taylor",
			"Volkova", "Wilson", "Morozov" };

	private static final AtomicLong registrations = new AtomicLong();

	/**
	 * Letters that set this run's new last names apart from every earlier run's, so that
	 * a search by a new user's own names finds that user and no crowd of namesakes.
	 */
	private static final String RUN = letters(ThreadLocalRandom.current().nextLong(26L * 26 * 26 * 26 * 26), 5);

	private Feeders() {
	}

	/** The letters in every last name this run registers; the summary names them. */
	static String runTag() {
		return RUN;
	}

	/** A random seeded user's id per call, from the seeding command's ids file. */
	static Iterator<Map<String, Object>> existingUserIds(Path idsFile) {
		return randomIds(userIds(idsFile));
	}

	/** The seeded ids, read once for several feeders. */
	static String[] userIds(Path idsFile) {
		return readColumn(idsFile, "id");
	}

	/** A random one of {@code ids} per call. */
	static Iterator<Map<String, Object>> randomIds(String[] ids) {
		return Stream.generate(() -> Map.<String, Object>of("id", ids[ThreadLocalRandom.current().nextInt(ids.length)]))
			.iterator();
	}

	/**
	 * A random (first name, last name) prefix pair per call, from a file of pairs sampled
	 * from the seeded profiles: short and long prefixes, common and rare names.
	 */
	static Iterator<Map<String, Object>> prefixPairs(Path prefixesFile) {
		List<String[]> pairs = readRows(prefixesFile);
		return Stream.generate(() -> {
			String[] pair = pairs.get(ThreadLocalRandom.current().nextInt(pairs.size()));
			return Map.<String, Object>of("first_name", pair[0], "last_name", pair[1]);
		}).iterator();
	}

	/**
	 * A new valid registration per call; names are letters only, as the API requires. The
	 * last name is a common one followed by this run's five random letters and the
	 * registration's number in six: no other registration's last name starts with it
	 * (another run's only if it drew the same five letters), so a search by the new
	 * user's two names finds that user alone.
	 */
	static Iterator<Map<String, Object>> newUsers() {
		return Stream.generate(() -> {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long n = registrations.incrementAndGet();
			return Map.<String, Object>of("first_name", FIRST[random.nextInt(FIRST.length)], "second_name",
					LAST[random.nextInt(LAST.length)] + RUN + letters(n, 6), "birthdate",
					(1950 + random.nextInt(55)) + "-0" + (1 + random.nextInt(9)) + "-1" + random.nextInt(10),
					"password", "load-test-password");
		}).iterator();
	}

	/**
	 * A number written in {@code width} letters (aaa, aab, ...), so that it fits a name;
	 * only its last {@code width} letters when it is larger.
	 */
	private static String letters(long n, int width) {
		char[] s = new char[width];
		for (int i = width - 1; i >= 0; i--) {
			s[i] = (char) ('a' + (n % 26));
			n /= 26;
		}
		return new String(s);
	}

	private static String[] readColumn(Path file, String header) {
		try (Stream<String> lines = Files.lines(file)) {
			String[] values = lines.filter((line) -> !line.isBlank() && !line.equals(header)).toArray(String[]::new);
			if (values.length == 0) {
				throw new IllegalStateException(file + " has no " + header + " values: seed the database first");
			}
			return values;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file.toAbsolutePath()
					+ ": seed first (./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000)"
					+ " or point -DidsFile at the ids", ex);
		}
	}

	private static List<String[]> readRows(Path file) {
		try (Stream<String> lines = Files.lines(file)) {
			List<String[]> rows = lines.skip(1)
				.filter((line) -> !line.isBlank())
				.map((line) -> line.split(",", -1))
				.toList();
			if (rows.isEmpty()) {
				throw new IllegalStateException(file + " has no rows");
			}
			return rows;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file.toAbsolutePath(), ex);
		}
	}

}
