package dev.highload.profiles.user;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

interface UserRepository extends Repository<User, UUID> {

	/**
	 * Prefix search as byte ranges on the C-collated name columns (see
	 * {@link PrefixRange}). The materialized CTE collects the matching ids from
	 * {@code users_name_prefix_idx} alone; without that fence the planner may walk the
	 * primary key in id order and filter every row, which is fast only when matches are
	 * dense. Ranges, unlike {@code LIKE $1}, keep the index usable in a generic plan.
	 * Parameters: first-name range, last-name range, the id to start after, page size.
	 */
	String SEARCH_SQL = """
			WITH matches AS MATERIALIZED (
			    SELECT id FROM users
			    WHERE first_name >= ?1 AND first_name < ?2
			      AND second_name >= ?3 AND second_name < ?4
			      AND id > ?5)
			SELECT u.id, u.first_name, u.second_name, u.birthdate, u.biography, u.city
			FROM users u
			WHERE u.id IN (SELECT id FROM matches ORDER BY id LIMIT ?6)
			ORDER BY u.id""";

	User save(User user);

	@Query("select u.passwordHash from User u where u.id = :id")
	Optional<String> findPasswordHashById(UUID id);

	@Query(value = SEARCH_SQL, nativeQuery = true)
	List<UserProfile> searchByPrefix(String firstFrom, String firstTo, String secondFrom, String secondTo, UUID after,
			int limit);

}
