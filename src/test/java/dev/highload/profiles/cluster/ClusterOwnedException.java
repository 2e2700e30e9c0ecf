package dev.highload.profiles.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * Another process owns the embedded cluster this process was asked to start: its message
 * names that process and says what to do instead.
 */
final class ClusterOwnedException extends IllegalStateException {

	private final long ownerPid;

	private ClusterOwnedException(String message, long ownerPid) {
		super(message);
		this.ownerPid = ownerPid;
	}

	/** The owning process's id, -1 if it did not record one. */
	long ownerPid() {
		return this.ownerPid;
	}

	static ClusterOwnedException forStart(Path baseDir, ClusterOwnership.Owner owner) {
		return new ClusterOwnedException(
				"""
						The embedded cluster in %s is already run by %s.
						Only one process runs a cluster's nodes; this one starts none of them. What to do instead:
						  - to use that service, nothing: it keeps running (stop it with Ctrl-C in its terminal, or kill %d);
						  - to seed into it: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=N (seeding joins the running cluster);
						  - to fail it over: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.failover;
						  - to run a second service on the same nodes: the production jar (target/user-profiles-*.jar) with the nodes' addresses, token keys and other ports (docs/operations.md, "Running against an existing cluster");
						  - to run a separate cluster: another --app.cluster.base-dir and other --app.cluster.*-port values."""
					.formatted(baseDir, owner.describe(), owner.pid()),
				owner.pid());
	}

	static ClusterOwnedException forJoin(Path baseDir, ClusterOwnership.Owner owner, List<String> silent) {
		return new ClusterOwnedException(
				"""
						The embedded cluster in %s is run by %s, but these nodes do not answer on this process's ports: %s.
						Give this process the same app.cluster.* settings (ports, passwords) as the owner, or wait until the owner has started."""
					.formatted(baseDir, owner.describe(), String.join("; ", silent)),
				owner.pid());
	}

}
