package dev.highload.profiles.user;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.highload.profiles.routing.Observed;
import dev.highload.profiles.routing.ReadRouter;
import dev.highload.profiles.routing.WalPosition;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The reads, the hottest statements of the service, in plain JDBC: one prepared statement
 * each, mapped straight into records. Through JPA the same read spent more time in
 * session, query-plan and result-assembly code than in the database (see
 * docs/reports/load-testing.md). Each runs on the node the {@link ReadRouter} chose, and
 * reads that node's WAL position and role in its first two columns
 * ({@link ReadRouter#POSITION}), so the router learns where each node is from the reads
 * themselves.
 * <p>
 * The id and the birthdate come back as PostgreSQL's text ({@code ::text}: the canonical
 * UUID and ISO date forms), which is what the JSON carries: parsing them into
 * {@code UUID}/{@code LocalDate} only to format them again cost about 14 % of the
 * service's CPU for a page of 100 profiles (JFR, docs/reports/load-testing.md).
 */
@Component
class ProfileQueries {

	/** The statements, shared with bench/saturation.py: db/queries, on the classpath. */
	static final String BY_ID = statement("profile-by-id.sql");

	/** Prefix search as byte ranges (see {@link PrefixRange} and the file's comment). */
	static final String SEARCH = statement("search.sql");

	static final String PASSWORD_HASH = "SELECT n.position, n.standby, u.password_hash FROM (" + ReadRouter.POSITION
			+ ") n LEFT JOIN users u ON u.id = ?";

	/** Where the profile's columns begin, after the position and the role. */
	private static final int FIRST = 3;

	Observed<Optional<UserProfile>> findById(JdbcClient node, UUID id) {
		return node.sql(BY_ID).param(id).query((ResultSet rs) -> {
			rs.next();
			String idText = rs.getString(FIRST);
			Optional<UserProfile> profile = (idText != null)
					? Optional.of(new UserProfile(idText, rs.getString(FIRST + 1), rs.getString(FIRST + 2),
							rs.getString(FIRST + 3), rs.getString(FIRST + 4), rs.getString(FIRST + 5)))
					: Optional.empty();
			return new Observed<>(profile, position(rs), rs.getBoolean(2));
		});
	}

	/** Raw bytes: no String is made for a search result (see {@link EncodedProfile}). */
	Observed<List<EncodedProfile>> search(JdbcClient node, PrefixRange first, PrefixRange last, UUID after, int limit) {
		return node.sql(SEARCH)
			.params(first.from(), first.to(), last.from(), last.to(), after, limit)
			.query((ResultSet rs) -> {
				List<EncodedProfile> page = new ArrayList<>();
				WalPosition seen = WalPosition.NONE;
				boolean standby = false;
				while (rs.next()) {
					seen = position(rs);
					standby = rs.getBoolean(2);
					byte[] id = rs.getBytes(FIRST);
					if (id != null) {
						page.add(new EncodedProfile(id, rs.getBytes(FIRST + 1), rs.getBytes(FIRST + 2),
								rs.getBytes(FIRST + 3), rs.getBytes(FIRST + 4), rs.getBytes(FIRST + 5)));
					}
				}
				return new Observed<>(page, seen, standby);
			});
	}

	Observed<Optional<String>> findPasswordHash(JdbcClient node, UUID id) {
		return node.sql(PASSWORD_HASH).param(id).query((ResultSet rs) -> {
			rs.next();
			return new Observed<>(Optional.ofNullable(rs.getString(FIRST)), position(rs), rs.getBoolean(2));
		});
	}

	private static WalPosition position(ResultSet rs) throws SQLException {
		return new WalPosition(rs.getLong(1));
	}

	/** A statement of db/queries, without its leading comment lines. */
	private static String statement(String name) {
		try {
			String text = new ClassPathResource("db/queries/" + name).getContentAsString(StandardCharsets.UTF_8);
			return text.lines().filter((line) -> !line.startsWith("--")).collect(Collectors.joining("\n")).strip();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read db/queries/" + name, ex);
		}
	}

}
