package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

/** The per-node read pools, for tests in other packages. */
public final class ReadPools {

	private ReadPools() {
	}

	/** Every node's read pool. */
	public static List<HikariDataSource> all(NodePools pools) {
		return new ArrayList<>(pools.byHost().values());
	}

	/** The read pools of the nodes that are replicas now. */
	public static List<HikariDataSource> replicas(NodePools pools) throws SQLException {
		List<HikariDataSource> replicas = new ArrayList<>();
		for (HikariDataSource pool : pools.byHost().values()) {
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
