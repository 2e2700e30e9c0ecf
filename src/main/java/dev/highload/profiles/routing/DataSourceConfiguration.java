package dev.highload.profiles.routing;

import java.sql.Connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;

import org.postgresql.Driver;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * The pools, the proxy for writes and the router for reads.
 * <p>
 * The write pool lists every node with {@code targetServerType=primary}: it finds the
 * primary and follows a promotion without a restart. The application's DataSource is a
 * {@link LazyConnectionDataSourceProxy} over it, which takes a physical connection only
 * at a transaction's first statement (a registration hashes its password first, holding
 * none). Reads do not go through it: every node has a read pool of its own, and the
 * {@link ReadRouter} sends each read to the node it needs.
 * <p>
 * Every pool logs in as the runtime role ({@code app.db.username}); Flyway and the seeder
 * connect as the role that owns the schema ({@code app.db.migration.*}, the runtime role
 * when unset) over connections of their own ({@link SchemaOwnerConnections}).
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
	 * The read router, with a pool per node: the nodes, then replicas not among them.
	 * With {@code app.db.read-from-replicas=false} it has none and reads on the write
	 * pool.
	 */
	@Bean(destroyMethod = "close")
	ReadRouter readRouter(DatabaseProperties properties, HikariDataSource writeDataSource,
			MeterRegistry meterRegistry) {
		List<HikariDataSource> pools = new ArrayList<>();
		if (properties.readFromReplicas()) {
			Set<String> hosts = new LinkedHashSet<>(properties.nodes());
			hosts.addAll(properties.replicas());
			for (String host : hosts) {
				HikariConfig pool = pool("read-" + host, List.of(host), "any", properties, properties.readPool(), true);
				// Not beans, so Spring Boot does not bind their metrics:
				// hikaricp_*{pool="read-host:port"}.
				pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meterRegistry));
				pools.add(new HikariDataSource(pool));
			}
		}
		return new ReadRouter(pools, properties.replicas(), writeDataSource, properties, meterRegistry);
	}

	@Bean
	@Primary
	DataSource dataSource(DatabaseProperties properties, HikariDataSource writeDataSource,
			MeterRegistry meterRegistry) {
		LazyConnectionDataSourceProxy proxy = new LazyConnectionDataSourceProxy(
				new SynchronousCommitCheck(writeDataSource, meterRegistry, properties.writeTimeout()));
		// The pool's own defaults, so the proxy need not open a connection to learn them.
		proxy.setDefaultAutoCommit(true);
		proxy.setDefaultTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
		return proxy;
	}

	@Bean
	SchemaOwnerConnections schemaOwnerConnections(DatabaseProperties properties) {
		String url = "jdbc:postgresql://" + String.join(",", properties.nodes()) + "/" + properties.database()
				+ "?targetServerType=primary&connectTimeout=" + properties.writePool().connectTimeout().toSeconds()
				+ "&tcpKeepAlive=true&ApplicationName=user-profiles-migration";
		return new SchemaOwnerConnections(new SimpleDriverDataSource(new Driver(), url, properties.migrationUsername(),
				properties.migrationPassword()));
	}

	/**
	 * Flyway connects as the schema's owner, and {@code ${runtime_role}} in the
	 * migrations is the role they grant the service's privileges to, as a quoted
	 * identifier. With one role it is the owner itself, and the grants change nothing.
	 */
	@Bean
	FlywayConfigurationCustomizer migrationsAsTheSchemaOwner(DatabaseProperties properties,
			SchemaOwnerConnections owner) {
		return (configuration) -> {
			configuration.dataSource(owner.dataSource());
			Map<String, String> placeholders = new HashMap<>(configuration.getPlaceholders());
			placeholders.put("runtime_role", quotedIdentifier(properties.username()));
			configuration.placeholders(placeholders);
		};
	}

	static String quotedIdentifier(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

	static String jdbcUrl(List<String> hosts, String targetServerType, DatabaseProperties properties,
			DatabaseProperties.Pool pool) {
		return "jdbc:postgresql://" + String.join(",", hosts) + "/" + properties.database() + "?targetServerType="
				+ targetServerType + "&connectTimeout=" + pool.connectTimeout().toSeconds() + "&socketTimeout="
				+ pool.socketTimeout().toSeconds() + "&tcpKeepAlive=true&ApplicationName=user-profiles";
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
	 * ({@code new HikariDataSource(config)}) rather than at the first request: the router
	 * reads a pool's size to tell whether its node answers.
	 */
	private static HikariConfig pool(String name, List<String> hosts, String targetServerType,
			DatabaseProperties properties, DatabaseProperties.Pool pool, boolean readOnly) {
		HikariConfig ds = new HikariConfig();
		ds.setPoolName(name);
		ds.setJdbcUrl(jdbcUrl(hosts, targetServerType, properties, pool));
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
