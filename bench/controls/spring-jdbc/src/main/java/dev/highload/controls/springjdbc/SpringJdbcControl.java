package dev.highload.controls.springjdbc;

import java.util.Map;
import java.util.UUID;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Benchmark control: the plain Spring Boot app a typical developer would write for
 * {@code GET /user/{id}} — Spring MVC on Tomcat, HikariCP, one {@link JdbcTemplate}
 * query, the row returned as a JSON map.
 * <p>
 * It exists so that a benchmark run can put the service's CPU per request next to
 * that of an ordinary, untuned Spring Boot app doing the same read against the same
 * replicas on the same machine. It is intentionally not tuned and not part of the
 * service's build; see {@code bench/controls/README.md}.
 */
@SpringBootApplication
@RestController
public class SpringJdbcControl {

	private static final String SELECT_USER = "SELECT id::text, first_name, second_name, birthdate::text, biography, city"
			+ " FROM users WHERE id = ?";

	private final JdbcTemplate jdbc;

	public SpringJdbcControl(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	public static void main(String[] args) {
		SpringApplication.run(SpringJdbcControl.class, args);
	}

	/**
	 * A malformed id never reaches here: binding it to {@link UUID} fails and Spring
	 * MVC answers 400 by default.
	 */
	@GetMapping("/user/{id}")
	public ResponseEntity<Map<String, Object>> user(@PathVariable UUID id) {
		try {
			return ResponseEntity.ok(this.jdbc.queryForMap(SELECT_USER, id));
		}
		catch (EmptyResultDataAccessException ex) {
			// queryForMap signals "no row" by throwing; that is the 404 case.
			return ResponseEntity.notFound().build();
		}
	}

}
