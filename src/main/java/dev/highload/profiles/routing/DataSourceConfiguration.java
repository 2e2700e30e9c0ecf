package dev.highload.profiles.routing;

import java.sql.Connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;

import org.postgresql.Driver;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Two pools and the proxy that routes between them.
 * <p>
 * The write pool lists every node with {@code targetServerType=primary}. The read pool
 * lists the replicas, then the other nodes, with {@code targetServerType=preferSecondary}
 * and load balancing: pgjdbc spreads connections over the replicas, skips a dead one, and
 * connects to the primary only when no replica answers. The application's DataSource is a
 * {@link LazyConnectionDataSourceProxy}: it takes a physical connection only at the first
 * statement, after the transaction manager has set the read-only flag, and takes it from
 * the read pool when that flag is set. A routing DataSource without the lazy proxy would
 * see the flag too late and send everything to the primary. A read-only scope without a
 * physical transaction goes to the read pool too ({@link ReadOnlyScopeDataSource}).
 * <p>
 * Both pools log in as the runtime role ({@code app.db.username}); Flyway and the seeder
 * connect as the role that owns the schema ({@code app.db.migration.*}, the runtime role
 * when unset) over connections of their own ({@link SchemaOwnerConnections}).
 */
@Configuration(proxyBeanMethods = false)
class DataSourceConfiguration {

	@Bean(destroyMethod = "close")
	HikariDataSource writeDataSource(DatabaseProperties properties) {
		HikariDataSource pool = pool("primary", properties.nodes(), "primary", properties, properties.writePool(),
				false);
		// A connection to a node that became read-only is evicted, not reused.
		pool.setExceptionOverrideClassName(ReadOnlyNodeEviction.class.getName());
		// pgjdbc remembers each host's role for hostRecheckSeconds (10 s by default) and
		// skips hosts it believes are standbys: after a promotion the pool would not try
		// the
		// new primary for up to 10 s. The write pool re-checks roles after 1 s instead.
		pool.addDataSourceProperty("hostRecheckSeconds", "1");
		return pool;
	}

	@Bean(destroyMethod = "close")
	HikariDataSource readDataSource(DatabaseProperties properties) {
		// The other nodes last: preferSecondary takes them only when no replica answers.
		List<String> hosts = new ArrayList<>(properties.replicas());
		properties.nodes().stream().filter((node) -> !hosts.contains(node)).forEach(hosts::add);
		return pool("replicas", hosts, "preferSecondary&loadBalanceHosts=true", properties, properties.readPool(),
				true);
	}

	@Bean
	@Primary
	DataSource dataSource(DatabaseProperties properties, HikariDataSource writeDataSource,
			HikariDataSource readDataSource, MeterRegistry meterRegistry) {
		LazyConnectionDataSourceProxy proxy = new LazyConnectionDataSourceProxy(
				new SynchronousCommitCheck(writeDataSource, meterRegistry, properties.writeTimeout()));
		// The pools' own defaults, so the proxy need not open a connection to learn them.
		proxy.setDefaultAutoCommit(true);
		proxy.setDefaultTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
		if (!properties.readFromReplicas()) {
			return proxy;
		}
		proxy.setReadOnlyDataSource(readDataSource);
		return new ReadOnlyScopeDataSource(proxy, readDataSource);
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

	private static HikariDataSource pool(String name, List<String> hosts, String targetServerType,
			DatabaseProperties properties, DatabaseProperties.Pool pool, boolean readOnly) {
		HikariDataSource ds = new HikariDataSource();
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
