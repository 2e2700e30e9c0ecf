package dev.highload.profiles.cluster;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An embedded cluster bootstrapped when the service had one role, which owned the
 * database and its tables and was a member of pg_monitor (later of pg_read_all_stats),
 * gets the two roles and the read of the standbys through monitoring.standbys() at its
 * next start: the migration role takes over what the runtime role owned, so the
 * developer's data stays. Shares ports 26432-26434 with
 * {@link EmbeddedClusterIntegrationTests}; the classes run one after the other.
 */
class RolesUpgradeIntegrationTests {

	static final ClusterProperties properties = OwnCluster.properties("roles-upgrade-cluster", 26432);

	@BeforeAll
	@AfterAll
	static void clean() throws Exception {
		OwnCluster.deleteNodes(properties);
	}

	@Test
	void aClusterOfTheOneRoleLayoutIsHandedToTheMigrationRoleAtItsNextStart() throws Exception {
		try (EmbeddedCluster cluster = EmbeddedCluster.acquire(properties)) {
			// Back to the layout of before: everything the
			// runtime role's, no migration role.
			execute(cluster, "postgres", "ALTER DATABASE profiles OWNER TO profiles",
					"GRANT pg_read_all_stats TO profiles", "GRANT pg_monitor TO profiles");
			execute(cluster, "profiles", "REASSIGN OWNED BY profiles_owner TO profiles",
					"CREATE TABLE users (note text)", "ALTER TABLE users OWNER TO profiles",
					"INSERT INTO users VALUES ('kept')", "DROP OWNED BY profiles_owner", "DROP ROLE profiles_owner");
			assertThat(query(cluster, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'profiles'"))
				.isEqualTo("profiles");
		}
		try (EmbeddedCluster cluster = EmbeddedCluster.acquire(properties)) {
			assertThat(query(cluster,
					"SELECT concat_ws(' ', (SELECT pg_get_userbyid(datdba) FROM pg_database "
							+ "WHERE datname = current_database()), pg_get_userbyid(nspowner), "
							+ "(SELECT tableowner FROM pg_tables WHERE tablename = 'users'), "
							+ "(SELECT note FROM users)) FROM pg_namespace WHERE nspname = 'public'"))
				.isEqualTo("profiles_owner profiles_owner profiles_owner kept");
			assertThat(query(cluster,
					"SELECT concat_ws(' ', pg_has_role('profiles', 'pg_monitor', 'MEMBER'), "
							+ "pg_has_role('profiles', 'pg_read_all_stats', 'MEMBER'), "
							+ "has_function_privilege('profiles', 'monitoring.standbys()', 'EXECUTE'), "
							+ "has_database_privilege('profiles', current_database(), 'CONNECT'), "
							+ "has_database_privilege('profiles', current_database(), 'TEMPORARY'), "
							+ "has_schema_privilege('profiles', 'public', 'CREATE'), "
							+ "has_table_privilege('profiles', 'users', 'SELECT'))"))
				.as("the runtime role: its privileges on the tables come with the service's next migration")
				.isEqualTo("f f t t f f f");
		}
	}

	private static void execute(EmbeddedCluster cluster, String database, String... statements) throws SQLException {
		try (Connection c = cluster.connectAsSuperuser("primary", database); Statement s = c.createStatement()) {
			for (String sql : statements) {
				s.execute(sql);
			}
		}
	}

	private static String query(EmbeddedCluster cluster, String sql) throws SQLException {
		try (Connection c = cluster.connectAsSuperuser("primary", "profiles");
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getString(1);
		}
	}

}
