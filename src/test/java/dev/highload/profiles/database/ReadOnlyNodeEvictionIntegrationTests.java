package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;
import dev.highload.profiles.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A write-pool connection that meets a read-only node (SQLState 25006, as after a
 * demotion) is evicted, so the next borrower gets a new connection; HikariCP alone hands
 * the same one out again. A replica of the test cluster plays the read-only node.
 */
@IntegrationTest
class ReadOnlyNodeEvictionIntegrationTests {

	@Autowired
	DatabaseProperties properties;

	@Test
	void aConnectionThatMetAReadOnlyNodeIsEvicted() throws Exception {
		try (HikariDataSource pool = poolOnAReplica(true)) {
			long first = backendPid(pool);
			writeAndExpectReadOnly(pool);
			assertThat(backendPid(pool)).isNotEqualTo(first);
		}
	}

	@Test
	void withoutTheOverrideHikariKeepsIt() throws Exception {
		try (HikariDataSource pool = poolOnAReplica(false)) {
			long first = backendPid(pool);
			writeAndExpectReadOnly(pool);
			assertThat(backendPid(pool)).isEqualTo(first);
		}
	}

	private HikariDataSource poolOnAReplica(boolean evictReadOnly) {
		HikariDataSource pool = new HikariDataSource();
		pool.setJdbcUrl("jdbc:postgresql://" + this.properties.replicas().get(0) + "/" + this.properties.database());
		pool.setUsername(this.properties.username());
		pool.setPassword(this.properties.password());
		pool.setMaximumPoolSize(1);
		if (evictReadOnly) {
			pool.setExceptionOverrideClassName(ReadOnlyNodeEviction.class.getName());
		}
		return pool;
	}

	private static void writeAndExpectReadOnly(HikariDataSource pool) throws SQLException {
		try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
			assertThatExceptionOfType(SQLException.class)
				.isThrownBy(() -> s.execute("CREATE TABLE eviction_probe (id int)"))
				.satisfies((ex) -> assertThat(ex.getSQLState()).isEqualTo("25006"));
		}
	}

	private static long backendPid(HikariDataSource pool) throws SQLException {
		try (Connection c = pool.getConnection();
				Statement s = c.createStatement();
				ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
			rs.next();
			return rs.getLong(1);
		}
	}

}
