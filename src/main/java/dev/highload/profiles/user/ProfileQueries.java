package dev.highload.profiles.user;

import java.time.LocalDate;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The point read, the hottest statement of the service, in plain JDBC: one prepared
 * statement, mapped straight into the record. Through JPA the same read spent more time
 * in session, query-plan and result-assembly code than in the database (see
 * docs/load-testing.md). It runs wherever the caller's transaction scope routes it.
 */
@Repository
class ProfileQueries {

	private static final String BY_ID = """
			SELECT id, first_name, second_name, birthdate, biography, city FROM users WHERE id = ?""";

	private final JdbcClient jdbc;

	ProfileQueries(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	Optional<UserProfile> findById(UUID id) {
		return this.jdbc.sql(BY_ID)
			.param(id)
			.query((rs, row) -> new UserProfile(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3),
					rs.getObject(4, LocalDate.class), rs.getString(5), rs.getString(6)))
			.optional();
	}

}
