package dev.highload.profiles.seed;

import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;

import javax.sql.DataSource;

import dev.highload.profiles.auth.PasswordHasher;
import dev.highload.profiles.database.SchemaOwnerConnections;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Loads generated profiles with COPY on the primary, in chunks that each commit on their
 * own. A chunk whose first id is already present is skipped, so a run that was
 * interrupted can be repeated with the same seed and completes what is missing. All
 * seeded users share one password, hashed once. Finishes with VACUUM ANALYZE so that the
 * planner has statistics and the search's index-only scans see a current visibility map.
 * <p>
 * It connects as the role that owns the schema ({@link SchemaOwnerConnections}): VACUUM
 * needs the table's owner, and the service's runtime role owns nothing.
 */
@Component
public class ProfileSeeder {

	private static final Logger log = LoggerFactory.getLogger(ProfileSeeder.class);

	static final int CHUNK = 50_000;

	private static final String COPY = "COPY users (id, first_name, second_name, birthdate, biography, city, "
			+ "password_hash, created_at) FROM STDIN";

	private final DataSource primary;

	private final PasswordHasher passwordHasher;

	ProfileSeeder(SchemaOwnerConnections owner, PasswordHasher passwordHasher) {
		this.primary = owner.dataSource();
		this.passwordHasher = passwordHasher;
	}

	/**
	 * @param users how many profiles
	 * @param randomSeed the generator's seed
	 * @param password every seeded user's password
	 * @param idsFile where to write the ids, or null
	 * @return what was done
	 */
	public Result seed(int users, long randomSeed, String password, Path idsFile) throws IOException, SQLException {
		long started = System.nanoTime();
		String hash = escape(this.passwordHasher.hash(password));
		String createdAt = Instant.now().toString();
		ProfileGenerator generator = new ProfileGenerator(randomSeed);
		if (idsFile != null && idsFile.toAbsolutePath().getParent() != null) {
			Files.createDirectories(idsFile.toAbsolutePath().getParent());
		}
		long inserted = 0;
		long skipped = 0;
		try (Connection connection = this.primary.getConnection();
				BufferedWriter ids = (idsFile != null) ? Files.newBufferedWriter(idsFile) : null) {
			if (ids != null) {
				ids.write("id\n");
			}
			connection.setAutoCommit(true);
			CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
			ByteArrayOutputStream chunk = new ByteArrayOutputStream(CHUNK * 200);
			StringBuilder row = new StringBuilder(256);
			for (int done = 0; done < users;) {
				int size = Math.min(CHUNK, users - done);
				chunk.reset();
				UUID first = null;
				for (int i = 0; i < size; i++) {
					ProfileGenerator.Profile p = generator.next();
					if (first == null) {
						first = p.id();
					}
					if (ids != null) {
						ids.write(p.id().toString());
						ids.write('\n');
					}
					row.setLength(0);
					row.append(p.id())
						.append('\t')
						.append(escape(p.firstName()))
						.append('\t')
						.append(escape(p.secondName()))
						.append('\t')
						.append(p.birthdate())
						.append('\t')
						.append(escape(p.biography()))
						.append('\t')
						.append((p.city() != null) ? escape(p.city()) : "\\N")
						.append('\t')
						.append(hash)
						.append('\t')
						.append(createdAt)
						.append('\n');
					chunk.writeBytes(row.toString().getBytes(StandardCharsets.UTF_8));
				}
				if (exists(connection, first)) {
					skipped += size;
				}
				else {
					copy.copyIn(COPY, new ByteArrayInputStream(chunk.toByteArray()));
					inserted += size;
				}
				done += size;
				log.info("Seeding: {}/{} profiles ({} inserted, {} already present), {} s", done, users, inserted,
						skipped, (System.nanoTime() - started) / 1_000_000_000);
			}
			log.info("Seeding: VACUUM ANALYZE users");
			try (Statement statement = connection.createStatement()) {
				// The connection is the owner's own, not pooled, and no pool's statement
				// timeout applies to it; a statement_timeout set on the role or the
				// database of an existing cluster would, and VACUUM of a large table may
				// outlast it. Lifted for this session, which ends with the seeding.
				statement.execute("SET statement_timeout = 0");
				statement.execute("VACUUM (ANALYZE) users");
				vacuumUntilAllVisible(statement);
			}
		}
		Result result = new Result(inserted, skipped, (System.nanoTime() - started) / 1_000_000, idsFile);
		log.info("Seeded {} profiles ({} were already present) in {} ms; ids in {}", result.inserted(),
				result.skipped(), result.millis(), idsFile);
		return result;
	}

	/**
	 * VACUUM marks a page all-visible only when its rows are older than every snapshot,
	 * the replicas' included: with hot_standby_feedback, a replica reports its oldest
	 * transaction every wal_receiver_status_interval (10 s), so the rows of the last
	 * seconds of seeding are still "recent" at the first VACUUM. Measured on 1,000,000
	 * rows: 31 % of the pages stayed not all-visible, the search's index-only scans
	 * fetched thousands of heap pages, and single-letter searches had a p99 of 12.8 ms
	 * instead of 5.0 ms. Repeats VACUUM, which then visits only those pages, until every
	 * page is all-visible or 30 s have passed.
	 */
	private static void vacuumUntilAllVisible(Statement statement) throws SQLException {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (true) {
			long pages;
			long visible;
			try (ResultSet rs = statement
				.executeQuery("SELECT relpages, relallvisible FROM pg_class WHERE oid = 'users'::regclass")) {
				rs.next();
				pages = rs.getLong(1);
				visible = rs.getLong(2);
			}
			if (visible >= pages || System.nanoTime() > deadline) {
				log.info("Seeding: {} of {} pages all-visible", visible, pages);
				return;
			}
			log.info("Seeding: {} of {} pages all-visible; VACUUM again in 2 s", visible, pages);
			try {
				Thread.sleep(2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			statement.execute("VACUUM users");
		}
	}

	private static boolean exists(Connection connection, UUID id) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM users WHERE id = ?")) {
			statement.setObject(1, id);
			try (ResultSet rs = statement.executeQuery()) {
				return rs.next();
			}
		}
	}

	/** COPY text format: backslash, tab and line breaks must be escaped. */
	static String escape(String value) {
		StringBuilder escaped = null;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			String replacement = switch (c) {
				case '\\' -> "\\\\";
				case '\t' -> "\\t";
				case '\n' -> "\\n";
				case '\r' -> "\\r";
				default -> null;
			};
			if (replacement != null && escaped == null) {
				escaped = new StringBuilder(value.substring(0, i));
			}
			if (escaped != null) {
				escaped.append((replacement != null) ? replacement : String.valueOf(c));
			}
		}
		return (escaped != null) ? escaped.toString() : value;
	}

	/**
	 * What a seeding run did.
	 *
	 * @param inserted rows inserted
	 * @param skipped rows already present from an earlier run with the same seed
	 * @param millis duration
	 * @param idsFile where the ids were written
	 */
	public record Result(long inserted, long skipped, long millis, Path idsFile) {

	}

}
