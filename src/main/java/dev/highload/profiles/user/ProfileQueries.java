package dev.highload.profiles.user;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The point read, the hottest statement of the service, in plain JDBC: one prepared
 * statement, mapped straight into the record. Through JPA the same read spent more time
 * in session, query-plan and result-assembly code than in the database (see
 * docs/reports/load-testing.md). It runs where the caller's transaction scope routes it.
 * <p>
 * The id and the birthdate come back as PostgreSQL's text ({@code ::text}: the canonical
 * UUID and ISO date forms), which is what the JSON carries: parsing them into
 * {@code UUID}/{@code LocalDate} only to format them again cost about 14 % of the
 * service's CPU for a page of 100 profiles (JFR, docs/reports/load-testing.md).
 */
@Component
class ProfileQueries {

	/** The statements, shared with bench/saturation.sh: db/queries, on the classpath. */
	private static final String BY_ID = statement("profile-by-id.sql");

	/** Prefix search as byte ranges (see {@link PrefixRange} and the file's comment). */
	static final String SEARCH = statement("search.sql");

	private static final RowMapper<UserProfile> PROFILE = (rs, row) -> new UserProfile(rs.getString(1), rs.getString(2),
			rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6));

	/** Raw bytes: no String is made for a search result (see {@link EncodedProfile}). */
	private static final RowMapper<EncodedProfile> ENCODED = (rs, row) -> new EncodedProfile(rs.getBytes(1),
			rs.getBytes(2), rs.getBytes(3), rs.getBytes(4), rs.getBytes(5), rs.getBytes(6));

	private final JdbcClient jdbc;

	ProfileQueries(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	Optional<UserProfile> findById(UUID id) {
		return this.jdbc.sql(BY_ID).param(id).query(PROFILE).optional();
	}

	List<EncodedProfile> search(PrefixRange first, PrefixRange last, UUID after, int limit) {
		return this.jdbc.sql(SEARCH)
			.params(first.from(), first.to(), last.from(), last.to(), after, limit)
			.query(ENCODED)
			.list();
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
