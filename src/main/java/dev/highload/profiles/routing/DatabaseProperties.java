package dev.highload.profiles.routing;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the service's two connection pools connect. Defaults match the embedded cluster.
 *
 * @param nodes every node as {@code host:port}; the write pool connects to whichever is
 * the primary, so it follows a promotion without a restart
 * @param replicas the replicas as {@code host:port}; the read pool balances over them and
 * falls back to the primary when none answers
 * @param database database name
 * @param username the runtime role, the one both pools log in as: it may read and insert
 * the service's tables and nothing more where the database was set up by this project
 * (docs/operations.md, "Database roles")
 * @param password its password
 * @param migration the role that owns the schema, which Flyway and the seeder connect as;
 * unset, they use the runtime role, which must then own the schema (one role, as on an
 * existing cluster where nobody made two)
 * @param readFromReplicas route read-only transactions to the replicas; {@code false}
 * sends everything to the primary (for comparisons)
 * @param writeTimeout how long a commit may wait for a synchronous standby before it is
 * cancelled and answered 503 "Outcome unknown" (the row may exist on the primary); while
 * no replica is connected, PostgreSQL would let it wait forever
 * @param writePool the primary's pool
 * @param readPool the replicas' pool; {@code application.yml} gives it a 2 s socket
 * timeout, so that a read on a replica that answers nothing fails over quickly, and a 60
 * s max lifetime, so that reads return to a replica that was down and came back
 */
@ConfigurationProperties("app.db")
public record DatabaseProperties(@DefaultValue( {
		"127.0.0.1:15432", "127.0.0.1:15433", "127.0.0.1:15434" }) List<String> nodes,
		@DefaultValue({ "127.0.0.1:15433", "127.0.0.1:15434" }) List<String> replicas,
		@DefaultValue("profiles") String database, @DefaultValue("profiles") String username,
		@DefaultValue("profiles") String password, @DefaultValue("true") boolean readFromReplicas,
		@DefaultValue("5s") Duration writeTimeout, @DefaultValue Pool writePool, @DefaultValue Pool readPool,
		@DefaultValue Migration migration){

	/** The role that migrations and the seeder log in as: the migration role if set. */
	public String migrationUsername() {
		return this.migration.separate() ? this.migration.username() : this.username;
	}

	/** The password of {@link #migrationUsername()}. */
	public String migrationPassword() {
		return this.migration.separate() ? this.migration.password() : this.password;
	}

	/**
	 * The migration role. As environment variables {@code APP_DB_MIGRATION_USERNAME} and
	 * {@code APP_DB_MIGRATION_PASSWORD}, the names db/scripts give them too.
	 *
	 * @param username owner of the schema's objects; unset (or empty), the runtime role
	 * @param password its password
	 */
	public record Migration(String username, String password) {

		boolean separate() {
			return this.username != null && !this.username.isBlank();
		}

	}

	/**
	 * One HikariCP pool.
	 *
	 * @param maximumSize connections at most
	 * @param connectionTimeout how long a caller waits for a connection
	 * @param connectTimeout TCP connect timeout of one node
	 * @param socketTimeout how long one network read may block; zero waits forever
	 * @param maxLifetime when a connection is retired
	 */
	public record Pool(@DefaultValue("16") int maximumSize, @DefaultValue("3s") Duration connectionTimeout,
			@DefaultValue("3s") Duration connectTimeout, @DefaultValue("30s") Duration socketTimeout,
			@DefaultValue("30m") Duration maxLifetime) {

	}

}
