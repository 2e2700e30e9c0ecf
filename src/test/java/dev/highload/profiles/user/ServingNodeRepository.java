package dev.highload.profiles.user;

import java.util.UUID;

import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.Repository;

/**
 * A Spring Data repository, as a feature would write one, that tells which node answered
 * it: the routing tests run it inside routed reads.
 */
interface ServingNodeRepository extends Repository<User, UUID> {

	/** The address and port of the node that ran the query. */
	@Query(value = "SELECT inet_server_addr()::text || ':' || inet_server_port()", nativeQuery = true)
	String servingNode();

}
