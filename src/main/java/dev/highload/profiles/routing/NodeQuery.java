package dev.highload.profiles.routing;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * One read statement, run on whichever node {@link ReadRouter} chose. The statement
 * selects the node's position and role with its result, as {@link ReadRouter#POSITION}
 * does, so that no read costs a second round trip.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface NodeQuery<T> {

	/**
	 * @param node a client for the chosen node's pool
	 * @return the result, with the position and role the statement read
	 */
	Observed<T> run(JdbcClient node);

}
