package dev.highload.profiles.routing;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.highload.profiles.database.DatabaseProperties;
import dev.highload.profiles.database.NodePools;
import dev.highload.profiles.database.Standbys;
import dev.highload.profiles.database.WritePath;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The read router and the application's DataSource it keys: the nodes' read pools inside
 * a routed read, the write path outside one.
 */
@Configuration(proxyBeanMethods = false)
class RoutingConfiguration {

	@Bean
	KnownPositions knownPositions(HikariDataSource writeDataSource, DatabaseProperties properties) {
		return new KnownPositions(writeDataSource, properties.primaryPositionSpacing().toMillis());
	}

	@Bean
	Nodes readNodes(NodePools nodePools, HikariDataSource writeDataSource, DatabaseProperties properties,
			KnownPositions knownPositions) {
		return new Nodes(nodePools, properties.replicas(), properties.routing() == DatabaseProperties.Routing.BALANCED,
				writeDataSource, knownPositions, properties.nodeCheckInterval().toMillis());
	}

	@Bean
	ReadRouter readRouter(Nodes readNodes, KnownPositions knownPositions, DatabaseProperties properties,
			MeterRegistry meterRegistry) {
		NodeChoice choice = new NodeChoice(readNodes, properties.readYourWritesWait().toNanos(), meterRegistry);
		return new ReadRouter(readNodes, choice, knownPositions, meterRegistry);
	}

	/** {@code /actuator/health/nodes}. */
	@Bean
	NodesHealthIndicator nodesHealthIndicator(Nodes readNodes, HikariDataSource writeDataSource, Standbys standbys) {
		return new NodesHealthIndicator(readNodes, writeDataSource, standbys);
	}

	@Bean
	@Primary
	DataSource dataSource(Nodes readNodes, HikariDataSource writeDataSource, DatabaseProperties properties,
			MeterRegistry meterRegistry) {
		ReadRoutingDataSource dataSource = new ReadRoutingDataSource();
		dataSource.setTargetDataSources(readNodes.pools());
		dataSource.setDefaultTargetDataSource(WritePath.over(writeDataSource, properties, meterRegistry));
		return dataSource;
	}

}
