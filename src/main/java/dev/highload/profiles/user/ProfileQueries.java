package dev.highload.profiles.user;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The point read, the hottest statement of the service, in plain JDBC: one prepared
 * statement, mapped straight into the record. Through JPA the same read spent more time
 * in session, query-plan and result-assembly code than in the database (see
 * docs/reports/load-testing.md). It runs wherever the caller's transaction scope routes
 * it.
 * <p>
 * The id and the birthdate come back as PostgreSQL's text ({@code ::text}: the canonical
 * UUID and ISO date forms), which is what the JSON carries: parsing them into
 * {@code UUID}/{@code LocalDate} only to format them again cost about 14 % of the
 * service's CPU for a page of 100 profiles (JFR, docs/reports/load-testing.md).
 */
@Component
class ProfileQueries {

	private static final String BY_ID = """
			SELECT id::text, first_name, second_name, birthdate::text, biography, city FROM users WHERE id = ?""";

	/**
	 * Prefix search as byte ranges on the C-collated name columns (see
	 * {@link PrefixRange}). The materialized CTE collects the matching ids from
	 * {@code users_name_prefix_idx} alone (an index-only scan); without that fence the
	 * planner may walk the primary key in id order and filter every row, which is fast
	 * only when matches are dense. Ranges, unlike {@code LIKE $1}, keep the index usable
	 * in a generic plan. Parameters: first-name range, last-name range, the id to start
	 * after, page size.
	 */
	static final String SEARCH = """
			WITH matches AS MATERIALIZED (
			    SELECT id FROM users
			    WHERE first_name >= ? AND first_name < ?
			      AND second_name >= ? AND second_name < ?
			      AND id > ?)
			SELECT u.id::text, u.first_name, u.second_name, u.birthdate::text, u.biography, u.city
			FROM users u
			WHERE u.id IN (SELECT id FROM matches ORDER BY id LIMIT ?)
			ORDER BY u.id""";

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

}
