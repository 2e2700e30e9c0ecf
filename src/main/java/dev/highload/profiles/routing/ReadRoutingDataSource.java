package dev.highload.profiles.routing;

import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;

/**
 * The application's DataSource. Inside a routed read ({@link ReadRouter#read}) it hands
 * out connections of the node the router chose, whatever JDBC code asks: a
 * {@code JdbcClient}, a Spring Data repository, a {@code @Transactional(readOnly = true)}
 * method called inside the read. Outside one it is the write path
 * ({@code database.WritePath}), to the primary. The keys are the nodes' names; one that
 * is not a node's fails rather than falling back to the write path.
 */
final class ReadRoutingDataSource extends AbstractRoutingDataSource {

	ReadRoutingDataSource() {
		setLenientFallback(false);
	}

	@Override
	protected Object determineCurrentLookupKey() {
		Node node = RoutedRead.currentNode();
		return (node != null) ? node.name : null;
	}

}
