package dev.highload.profiles.database;

import java.util.Collections;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A read pool per node, by its {@code host:port}, in configuration order. Each pool
 * connects to its one node whatever its role. Empty with
 * {@code app.db.read-from-replicas=false}.
 */
public final class NodePools implements AutoCloseable {

	private final Map<String, HikariDataSource> byHost;

	NodePools(Map<String, HikariDataSource> byHost) {
		this.byHost = Collections.unmodifiableMap(byHost);
	}

	/** The pools by {@code host:port}. */
	public Map<String, HikariDataSource> byHost() {
		return this.byHost;
	}

	@Override
	public void close() {
		this.byHost.values().forEach(HikariDataSource::close);
	}

}
