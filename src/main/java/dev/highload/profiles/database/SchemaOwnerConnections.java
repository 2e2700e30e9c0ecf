package dev.highload.profiles.database;

import javax.sql.DataSource;

/**
 * Connections to the primary as the role that owns the schema
 * ({@code app.db.migration.*}, or the runtime role when that is unset): Flyway's, and the
 * seeder's, whose {@code VACUUM} needs the table's owner. Not a pool: Flyway opens a
 * connection or two at start-up, the seeder one. No socket timeout, since a migration or
 * a {@code VACUUM} may take longer than any request.
 * <p>
 * Not a DataSource bean, so that nothing which collects every DataSource (the health
 * indicator, the pool metrics) ever logs in as the owner.
 */
public final class SchemaOwnerConnections {

	private final DataSource dataSource;

	SchemaOwnerConnections(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/** A new connection per call, as the schema's owner. */
	public DataSource dataSource() {
		return this.dataSource;
	}

}
