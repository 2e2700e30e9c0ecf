package dev.highload.profiles.database;

import tools.jackson.databind.JsonNode;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.highload.profiles.ApiClient;
import dev.highload.profiles.ClusterNodes;
import dev.highload.profiles.IntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalManagementPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The service's pools log in as the runtime role, which may read and insert users and do
 * nothing else with them (of registration keys it may also delete rows and set the replay
 * time), while the schema belongs to the migration role that Flyway ran as: on the
 * cluster the tests run on, set up as every deployment sets it up (the embedded cluster,
 * or with {@code -Dit.cluster=testcontainers} db/scripts/init-primary.sh).
 */
@IntegrationTest
class DatabaseRolesIntegrationTests {

	@Autowired
	@Qualifier("writeDataSource")
	DataSource writePool;

	@Autowired
	NodePools nodePools;

	@Autowired
	SchemaOwnerConnections migrations;

	@Autowired
	DatabaseProperties properties;

	@Autowired
	ClusterNodes cluster;

	@LocalManagementPort
	int managementPort;

	@Test
	void thePoolsLogInAsTheRuntimeRoleAndMigrationsAsTheOwner() throws SQLException {
		assertThat(this.properties.migrationUsername()).isNotEqualTo(this.properties.username());
		assertThat(query(this.writePool, "SELECT current_user")).isEqualTo(this.properties.username());
		assertThat(ReadPools.all(this.nodePools)).hasSize(3);
		for (DataSource readPool : ReadPools.all(this.nodePools)) {
			assertThat(query(readPool, "SELECT current_user")).isEqualTo(this.properties.username());
		}
		assertThat(query(this.migrations.dataSource(), "SELECT current_user"))
			.isEqualTo(this.properties.migrationUsername());
		assertThat(this.cluster.queryValue("primary", this.properties.database(),
				"SELECT string_agg(DISTINCT installed_by, ',') FROM flyway_schema_history"))
			.isEqualTo(this.properties.migrationUsername());
	}

	/**
	 * The database health check takes a connection of the write pool alone: never the
	 * owner's, and not the routing DataSource's node pools, so that a replica down does
	 * not take the service's health down.
	 */
	@Test
	void theHealthChecksConnectThroughTheWritePoolNeverAsTheOwner() {
		ApiClient.Response health = new ApiClient(this.managementPort).get("/actuator/health");
		JsonNode db = health.json().get("components").get("db");
		assertThat(db.has("components")).as("one DataSource checked: " + db).isFalse();
		assertThat(db.get("status").asString()).isEqualTo("UP");
	}

	@ParameterizedTest
	@ValueSource(strings = { "CREATE TABLE probe (id int)", "CREATE TEMP TABLE probe (id int)",
			"UPDATE users SET city = city WHERE false", "DELETE FROM users WHERE false", "TRUNCATE users",
			"ALTER TABLE users ADD COLUMN probe int", "CREATE INDEX ON users (city)", "DROP TABLE users",
			"INSERT INTO flyway_schema_history SELECT * FROM flyway_schema_history WHERE false",
			"DELETE FROM flyway_schema_history", "UPDATE registration_keys SET user_id = user_id WHERE false",
			"UPDATE registration_keys SET fingerprint = fingerprint WHERE false",
			"UPDATE registration_keys SET key = key WHERE false",
			"UPDATE registration_keys SET created_at = now() WHERE false", "TRUNCATE registration_keys" })
	void theServicesWritePoolMayNot(String sql) throws SQLException {
		try (Connection c = this.writePool.getConnection(); Statement s = c.createStatement()) {
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> s.execute(sql))
				.satisfies((ex) -> assertThat(ex.getSQLState()).as(ex.getMessage()).isEqualTo("42501"));
		}
	}

	@Test
	void everyTableIsReadableAndInsertableAndNoMoreByTheRuntimeRoleAndFlywaysHistoryOnlyReadable() throws SQLException {
		List<String> tables = new ArrayList<>();
		try (Connection c = this.cluster.connectAsSuperuser("primary", this.properties.database());
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT c.relname || ' ' || pg_get_userbyid(c.relowner) || ' ' || "
						+ "concat_ws(',', CASE WHEN has_table_privilege(r.oid, c.oid, 'SELECT') THEN 'SELECT' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'INSERT') THEN 'INSERT' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'UPDATE') THEN 'UPDATE' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'DELETE') THEN 'DELETE' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'TRUNCATE') THEN 'TRUNCATE' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'REFERENCES') THEN 'REFERENCES' END, "
						+ "CASE WHEN has_table_privilege(r.oid, c.oid, 'TRIGGER') THEN 'TRIGGER' END) "
						+ "FROM pg_class c, pg_roles r WHERE c.relnamespace = 'public'::regnamespace "
						+ "AND c.relkind IN ('r', 'p', 'v', 'm') AND r.rolname = '" + this.properties.username() + "' "
						+ "ORDER BY c.relname")) {
			while (rs.next()) {
				tables.add(rs.getString(1));
			}
		}
		String owner = this.properties.migrationUsername();
		// registration_keys: its expired keys are deleted, and a retry writes the time it
		// was answered (UPDATE of that column alone, below).
		// flyway_schema_history: read by a service that only validates the migrations.
		assertThat(tables).contains("flyway_schema_history " + owner + " SELECT", "users " + owner + " SELECT,INSERT",
				"registration_keys " + owner + " SELECT,INSERT,DELETE");
		assertThat(tables)
			.filteredOn((table) -> !table.startsWith("flyway_schema_history ")
					&& !table.startsWith("pg_stat_statements") && !table.startsWith("registration_keys "))
			.allMatch((table) -> table.endsWith(" " + owner + " SELECT,INSERT"));
	}

	@Test
	void theRuntimeRoleMayUpdateOnlyTheReplayTimeOfARegistrationKey() throws SQLException {
		assertThat(this.cluster.queryValue("primary", this.properties.database(),
				"SELECT string_agg(a.attname, ',' ORDER BY a.attnum) FROM pg_attribute a "
						+ "WHERE a.attrelid = 'registration_keys'::regclass AND a.attnum > 0 AND NOT a.attisdropped "
						+ "AND has_column_privilege(?::name, a.attrelid, a.attnum, 'UPDATE')",
				this.properties.username()))
			.isEqualTo("replayed_at");
		try (Connection c = this.writePool.getConnection(); Statement s = c.createStatement()) {
			s.execute("UPDATE registration_keys SET replayed_at = now() WHERE false");
			s.execute("DELETE FROM registration_keys WHERE false");
			s.execute("SELECT key FROM registration_keys WHERE false FOR UPDATE SKIP LOCKED");
		}
	}

	@Test
	void theRuntimeRoleOwnsNothingAndReadsReplicationStateOnly() throws SQLException {
		assertThat(query(this.writePool,
				"SELECT (SELECT count(*) FROM pg_class WHERE relowner = current_user::regrole)"
						+ " + (SELECT count(*) FROM pg_namespace WHERE nspowner = current_user::regrole)"
						+ " + (SELECT count(*) FROM pg_database WHERE datdba = current_user::regrole)"))
			.isEqualTo("0");
		assertThat(query(this.writePool, "SELECT has_database_privilege(current_database(), 'CREATE') || ' '"
				+ " || has_database_privilege(current_database(), 'TEMPORARY') || ' '"
				+ " || has_schema_privilege('public', 'CREATE') || ' ' || has_schema_privilege('public', 'USAGE')"))
			.isEqualTo("false false false true");
		// The health details and the replication metrics read the walsenders' state
		// through monitoring.standbys() (db/scripts/monitoring.sql), and that alone: no
		// statistics role, no other session's query, no walsender's state in the view.
		assertThat(query(this.writePool, "SELECT pg_has_role('pg_read_all_stats', 'MEMBER') || ' '"
				+ "|| pg_has_role('pg_monitor', 'MEMBER') || ' ' || (SELECT count(*) > 0 AND count(*) = count(state) "
				+ "FROM monitoring.standbys()) || ' ' || (SELECT count(state) FROM pg_stat_replication)"))
			.isEqualTo("false false true 0");
		try (Connection superuser = this.cluster.connectAsSuperuser("primary", this.properties.database());
				Statement s = superuser.createStatement();
				Connection runtime = this.writePool.getConnection()) {
			s.execute("SELECT 'a superuser''s statement' /* query text */, pg_sleep(0)");
			assertThat(query(runtime,
					"SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%query text%' "
							+ "AND usename IS DISTINCT FROM current_user"))
				.as("another role's statements, in pg_stat_activity")
				.isEqualTo("0");
		}
	}

	@Test
	void theStandbysAreReadThroughTheFunctionAndFromTheViewWhereTheFunctionCannotBeCalled() throws SQLException {
		String sql = "SELECT count(*) || ' ' || count(application_name) || ' ' || count(state) FROM "
				+ Standbys.RELATION;
		try (Connection runtime = this.writePool.getConnection()) {
			assertThat(new Standbys().query(runtime, sql, firstValue())).isEqualTo("2 2 2");
		}
		// A role that may not call it, as on a cluster set up without it: the view, which
		// shows it the walsenders' names but not their state or positions.
		try (Connection c = this.cluster.connectAsSuperuser("primary", this.properties.database());
				Statement s = c.createStatement()) {
			s.execute("DROP ROLE IF EXISTS it_no_monitoring");
			s.execute("CREATE ROLE it_no_monitoring");
			try {
				s.execute("SET ROLE it_no_monitoring");
				Standbys standbys = new Standbys();
				assertThat(standbys.query(c, sql, firstValue())).isEqualTo("2 2 0");
				assertThat(standbys.query(c, sql, firstValue())).as("the second read").isEqualTo("2 2 0");
			}
			finally {
				s.execute("RESET ROLE");
				s.execute("DROP ROLE it_no_monitoring");
			}
		}
	}

	private static Standbys.Rows<String> firstValue() {
		return (rs) -> {
			rs.next();
			return rs.getString(1);
		};
	}

	private static String query(Connection c, String sql) throws SQLException {
		try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

	private static String query(DataSource dataSource, String sql) throws SQLException {
		try (Connection c = dataSource.getConnection();
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
