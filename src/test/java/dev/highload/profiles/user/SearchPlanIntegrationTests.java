package dev.highload.profiles.user;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.IntegrationTest;
import dev.highload.profiles.database.NodePools;
import dev.highload.profiles.database.ReadPools;
import dev.highload.profiles.seed.ProfileSeeder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search's plan on a realistically sized table, taken through the application's own
 * JDBC path (the read pool) for the application's own SQL: as a custom plan, the way
 * pgjdbc's first executions run, and as a generic plan, the way a server-side prepared
 * statement may run after five executions.
 */
@IntegrationTest
class SearchPlanIntegrationTests {

	static final int ROWS = 200_000;

	@LocalServerPort
	int port;

	@Autowired
	NodePools nodePools;

	@BeforeAll
	static void seed(@Autowired ProfileSeeder seeder, @Autowired @Qualifier("writeDataSource") DataSource primary)
			throws Exception {
		Path ids = Path.of("target/search-plan-ids.csv");
		seeder.seed(ROWS, 7, "seeded-password", ids);
		assertThat(Files.readAllLines(ids)).hasSize(ROWS + 1);
		try (Connection c = primary.getConnection();
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT count(*) FROM users")) {
			rs.next();
			assertThat(rs.getLong(1)).isGreaterThanOrEqualTo(ROWS);
		}
	}

	@ParameterizedTest
	@CsvSource({ "Ал, Ив", "А, И", "Ja, Sm", "Мария, Кузнецова", "Zz, Qq", "%, _" })
	void searchUsesTheNameIndexInGenericAndCustomPlans(String first, String last) throws SQLException {
		PrefixRange f = PrefixRange.of(first).orElseThrow();
		PrefixRange l = PrefixRange.of(last).orElseThrow();
		Object[] arguments = { f.from(), f.to(), l.from(), l.to(), SearchQuery.FIRST_PAGE, 100 };
		try (Connection c = ReadPools.replicas(this.nodePools).get(0).getConnection()) {
			assertThat(query(c, "SELECT pg_is_in_recovery()")).isEqualTo("t");
			String custom = explain(c, "force_custom_plan", arguments);
			String generic = explain(c, "force_generic_plan", arguments);
			for (String plan : List.of(custom, generic)) {
				assertThat(plan).contains("\"Index Name\": \"users_name_prefix_idx\"").doesNotContain("Seq Scan");
			}
		}
	}

	@Test
	void thePointReadWithItsPositionIsOneIndexScan() throws SQLException {
		try (Connection c = ReadPools.replicas(this.nodePools).get(0).getConnection();
				Statement s = c.createStatement()) {
			s.execute("PREPARE by_id(uuid) AS " + ProfileQueries.BY_ID.replace("?", "$1"));
			try (ResultSet rs = s.executeQuery("EXPLAIN (FORMAT JSON) EXECUTE by_id('" + UUID.randomUUID() + "')")) {
				rs.next();
				assertThat(rs.getString(1)).contains("\"Index Name\": \"users_pkey\"").doesNotContain("Seq Scan");
			}
			finally {
				s.execute("DEALLOCATE by_id");
			}
		}
	}

	@Test
	void broadPrefixesAnswerABoundedPage() {
		ApiClient api = new ApiClient(this.port);
		ApiClient.Response page = api.search(Map.of("first_name", "А", "last_name", "К"));
		assertThat(page.status()).isEqualTo(200);
		List<String> ids = new ArrayList<>();
		page.json().forEach((user) -> ids.add(user.get("id").asString()));
		assertThat(ids).hasSize(100).isSorted();
		assertThat(page.headers().firstValue("Link")).isPresent();
		ApiClient.Response large = api.search(Map.of("first_name", "А", "last_name", "К", "limit", "1000"));
		assertThat(large.json().size()).isEqualTo(1000);
		assertThat(UUID.fromString(large.json().get(99).get("id").asString()).toString()).isEqualTo(ids.get(99));
	}

	/** EXPLAIN of the repository's SQL, prepared server-side with the given plan mode. */
	private static String explain(Connection c, String planCacheMode, Object[] arguments) throws SQLException {
		StringBuilder positional = new StringBuilder();
		int parameter = 0;
		for (char ch : ProfileQueries.SEARCH.toCharArray()) {
			positional.append((ch == '?') ? "$" + (++parameter) : String.valueOf(ch));
		}
		try (Statement s = c.createStatement()) {
			s.execute("SET plan_cache_mode = " + planCacheMode);
			s.execute("DEALLOCATE ALL");
			s.execute("PREPARE search(text, text, text, text, uuid, int) AS " + positional);
		}
		StringBuilder call = new StringBuilder("EXPLAIN (FORMAT JSON) EXECUTE search(");
		for (int i = 0; i < arguments.length; i++) {
			call.append((i > 0) ? ", " : "")
				.append('\'')
				.append(arguments[i].toString().replace("'", "''"))
				.append('\'');
		}
		call.append(")");
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(call.toString())) {
			rs.next();
			return rs.getString(1);
		}
		finally {
			try (Statement s = c.createStatement()) {
				s.execute("DEALLOCATE ALL");
				s.execute("RESET plan_cache_mode");
			}
		}
	}

	private static String query(Connection c, String sql) throws SQLException {
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
