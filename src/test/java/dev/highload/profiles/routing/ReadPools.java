package dev.highload.profiles.routing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

/** The router's per-node read pools, for tests in other packages. */
public final class ReadPools {

	private ReadPools() {
	}

	/** Every node's read pool. */
	public static List<HikariDataSource> all(ReadRouter router) {
		return router.pools();
	}

	/** The read pools of the nodes that are replicas now. */
	public static List<HikariDataSource> replicas(ReadRouter router) throws SQLException {
		List<HikariDataSource> replicas = new ArrayList<>();
		for (HikariDataSource pool : router.pools()) {
			try (Connection c = pool.getConnection();
					Statement s = c.createStatement();
					ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
				rs.next();
				if (rs.getBoolean(1)) {
					replicas.add(pool);
				}
			}
		}
		return replicas;
	}

}
