package dev.highload.profiles.user;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.highload.profiles.routing.NodePosition;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The reads, the hottest statements of the service, in plain JDBC: one prepared statement
 * each, mapped straight into records. Through JPA the same read spent more time in
 * session, query-plan and result-assembly code than in the database (see
 * docs/reports/controls.md). Each runs inside a routed read
 * ({@link dev.highload.profiles.routing.ReadRouter#read}), on the application's
 * DataSource, which hands it the chosen node's connection; each selects that node's WAL
 * position and role in its first two columns and reports them ({@link NodePosition}), so
 * the router learns where each node is from the reads themselves.
 * <p>
 * The id and the birthdate come back as PostgreSQL's text ({@code ::text}: the canonical
 * UUID and ISO date forms), which is what the JSON carries: parsing them into
 * {@code UUID}/{@code LocalDate} only to format them again was a large share of a search
 * page's CPU (docs/reports/controls.md).
 */
@Component
class ProfileQueries {

	/** The statements, shared with bench/saturation.py: db/queries, on the classpath. */
	static final String BY_ID = statement("profile-by-id.sql");

	/** Prefix search as byte ranges (see {@link PrefixRange} and the file's comment). */
	static final String SEARCH = statement("search.sql");

	static final String PASSWORD_HASH = statement("password-hash.sql");

	/** Where the profile's columns begin, after the position and the role. */
	private static final int FIRST = 3;

	private final JdbcTemplate template;

	private final JdbcClient jdbc;

	ProfileQueries(DataSource dataSource) {
		this.template = new JdbcTemplate(dataSource);
		this.jdbc = JdbcClient.create(this.template);
	}

	/**
	 * The hottest statement, on JdbcTemplate with the parameter set by hand: JdbcClient's
	 * statement spec and parameter factory are work per call that a point read does not
	 * need (docs/reports/controls.md, "Profiles of a GET").
	 */
	Optional<UserProfile> findById(UUID id) {
		return this.template.query(BY_ID, (PreparedStatement statement) -> statement.setObject(1, id),
				(ResultSet rs) -> {
					rs.next();
					NodePosition.report(rs);
					String idText = rs.getString(FIRST);
					return (idText != null)
							? Optional.of(new UserProfile(idText, rs.getString(FIRST + 1), rs.getString(FIRST + 2),
									rs.getString(FIRST + 3), rs.getString(FIRST + 4), rs.getString(FIRST + 5)))
							: Optional.empty();
				});
	}

	/** Raw bytes: no String is made for a search result (see {@link EncodedProfile}). */
	List<EncodedProfile> search(PrefixRange first, PrefixRange last, UUID after, int limit) {
		return this.jdbc.sql(SEARCH)
			.params(first.from(), first.to(), last.from(), last.to(), after, limit)
			.query((ResultSet rs) -> {
				List<EncodedProfile> page = new ArrayList<>();
				boolean firstRow = true;
				while (rs.next()) {
					if (firstRow) {
						NodePosition.report(rs);
						firstRow = false;
					}
					byte[] id = rs.getBytes(FIRST);
					if (id != null) {
						page.add(new EncodedProfile(id, rs.getBytes(FIRST + 1), rs.getBytes(FIRST + 2),
								rs.getBytes(FIRST + 3), rs.getBytes(FIRST + 4), rs.getBytes(FIRST + 5)));
					}
				}
				return page;
			});
	}

	Optional<String> findPasswordHash(UUID id) {
		return this.jdbc.sql(PASSWORD_HASH).param(id).query((ResultSet rs) -> {
			rs.next();
			NodePosition.report(rs);
			return Optional.ofNullable(rs.getString(FIRST));
		});
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
