package dev.highload.profiles.database;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The pools: one for writes, one per node for reads.
 * <p>
 * The write pool lists every node with {@code targetServerType=primary}: it finds the
 * primary and follows a promotion without a restart. Writes reach it through
 * {@link WritePath}. Every node also has a read pool of its own ({@link NodePools}), so
 * that a read can be sent to the node it needs; the routing package decides which.
 * <p>
 * Every pool logs in as the runtime role ({@code app.db.username}); Flyway and the seeder
 * connect over connections of their own ({@link MigrationConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
class DataSourceConfiguration {

	@Bean(destroyMethod = "close")
	HikariDataSource writeDataSource(DatabaseProperties properties) {
		HikariConfig pool = pool("primary", properties.nodes(), "primary", properties, properties.writePool(), false);
		// A connection to a node that became read-only is evicted, not reused.
		pool.setExceptionOverrideClassName(ReadOnlyNodeEviction.class.getName());
		// pgjdbc remembers each host's role for hostRecheckSeconds (10 s by default) and
		// skips hosts it believes are standbys: after a promotion the pool would not try
		// the new primary for up to 10 s. The write pool re-checks roles after 1 s.
		pool.addDataSourceProperty("hostRecheckSeconds", "1");
		return new HikariDataSource(pool);
	}

	/**
	 * A read pool per node: the nodes, then replicas not among them. None with
	 * {@code app.db.read-from-replicas=false}: every read then runs on the write pool.
	 */
	@Bean(destroyMethod = "close")
	NodePools nodePools(DatabaseProperties properties, MeterRegistry meterRegistry) {
		Map<String, HikariDataSource> pools = new LinkedHashMap<>();
		if (properties.readFromReplicas()) {
			Set<String> hosts = new LinkedHashSet<>(properties.nodes());
			hosts.addAll(properties.replicas());
			for (String host : hosts) {
				HikariConfig pool = pool("read-" + host, List.of(host), "any", properties, properties.readPool(), true);
				// Not beans, so Spring Boot does not bind their metrics:
				// hikaricp_*{pool="read-host:port"}.
				pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meterRegistry));
				pools.put(host, new HikariDataSource(pool));
			}
		}
		return new NodePools(pools);
	}

	/**
	 * How long the pool checks an idle connection before handing it out. A node that
	 * answers nothing must not hold a caller longer than a query on it may (Hikari's
	 * default is 5 s, above the 3 s a caller waits for a connection): half the connection
	 * timeout, at most the socket timeout, at least Hikari's minimum of 250 ms.
	 */
	static Duration validationTimeout(DatabaseProperties.Pool pool) {
		Duration bound = pool.connectionTimeout().dividedBy(2);
		if (!pool.socketTimeout().isZero() && pool.socketTimeout().compareTo(bound) < 0) {
			bound = pool.socketTimeout();
		}
		return (bound.toMillis() < 250) ? Duration.ofMillis(250) : bound;
	}

	/**
	 * pgjdbc's {@code options}: the pool's statement timeout as a server setting of every
	 * connection. HikariCP does not evict a connection whose statement was cancelled
	 * (57014): it evicts on class 08 and 57P01-57P03, not on 57014 (HikariCP 7.0,
	 * {@code ProxyConnection.checkException}).
	 */
	static String statementTimeoutOption(DatabaseProperties.Pool pool) {
		return "-c statement_timeout=" + pool.statementTimeout().toMillis();
	}

	/**
	 * A pool's settings. The callers start it at once
	 * ({@code new HikariDataSource(config)}) rather than at the first request: the
	 * routing reads a pool's size to tell whether its node answers.
	 */
	private static HikariConfig pool(String name, List<String> hosts, String targetServerType,
			DatabaseProperties properties, DatabaseProperties.Pool pool, boolean readOnly) {
		HikariConfig ds = new HikariConfig();
		ds.setPoolName(name);
		ds.setJdbcUrl(properties.jdbcUrl(hosts, targetServerType, pool.connectTimeout(), pool.socketTimeout(),
				"user-profiles"));
		ds.setUsername(properties.username());
		ds.setPassword(properties.password());
		ds.setMaximumPoolSize(pool.maximumSize());
		ds.setMinimumIdle(pool.maximumSize());
		ds.setConnectionTimeout(pool.connectionTimeout().toMillis());
		ds.setValidationTimeout(validationTimeout(pool).toMillis());
		ds.setMaxLifetime(pool.maxLifetime().toMillis());
		ds.setReadOnly(readOnly);
		ds.setAutoCommit(true);
		// In the startup packet: no round trip at connect, none per request.
		ds.addDataSourceProperty("options", statementTimeoutOption(pool));
		// Start even when a node is down; the pool connects when it can.
		ds.setInitializationFailTimeout(-1);
		return ds;
	}

}
