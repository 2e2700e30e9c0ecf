package dev.highload.controls.vertxpg;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnectOptions;
import io.vertx.sqlclient.Tuple;

/**
 * Benchmark control: {@code GET /user/{id}} served by Vert.x core and the reactive
 * PostgreSQL client — no framework, no router, one verticle per event loop, each
 * with its own small pipelined pool over both replicas. This is close to the fastest
 * the JVM serves this read, so a benchmark run can show how far the service (and a
 * plain Spring Boot app) are from that floor of CPU per request on the same machine.
 * <p>
 * Configured from the environment only: {@code PORT} (default 18091),
 * {@code REPLICAS} (default {@code 127.0.0.1:15433,127.0.0.1:15434}),
 * {@code PGDATABASE} and {@code PGUSER} (default {@code profiles}) and
 * {@code PGPASSWORD} (default {@code profiles}). Not part of the service's build; see
 * {@code bench/controls/README.md}.
 */
public final class VertxPgControl extends VerticleBase {

	private static final String SELECT_USER = "SELECT id::text, first_name, second_name, birthdate::text, biography, city"
			+ " FROM users WHERE id = $1";

	private static final String PREFIX = "/user/";

	/** Connections per event loop: with pipelining, a few connections keep a replica busy. */
	private static final int POOL_SIZE_PER_EVENT_LOOP = 4;

	/** Queries in flight per connection before the pool queues them. */
	private static final int PIPELINING_LIMIT = 256;

	private static final String JSON = "application/json";

	private final int port;

	private final List<SqlConnectOptions> replicas;

	private Pool pool;

	/** Set after this event loop logs its first database failure, so an outage does not flood the log. */
	private boolean dbFailureLogged;

	private VertxPgControl(int port, List<SqlConnectOptions> replicas) {
		this.port = port;
		this.replicas = replicas;
	}

	public static void main(String[] args) {
		int port = Integer.parseInt(env("PORT", "18091"));
		String replicaList = env("REPLICAS", "127.0.0.1:15433,127.0.0.1:15434");
		List<SqlConnectOptions> replicas = replicas(replicaList, env("PGDATABASE", "profiles"),
				env("PGUSER", "profiles"), env("PGPASSWORD", "profiles"));
		int eventLoops = Runtime.getRuntime().availableProcessors();

		Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
		// One instance per event loop: each binds the same port (Vert.x spreads
		// connections over them) and owns a pool on its own loop, so nothing is shared.
		vertx.deployVerticle(() -> new VertxPgControl(port, replicas), new DeploymentOptions().setInstances(eventLoops))
			.onSuccess((id) -> System.out.printf("vertx-pg-control listening on port %d, %d event loops, replicas %s%n",
					port, eventLoops, replicaList))
			.onFailure((ex) -> {
				// Typically the port is taken: exit non-zero rather than linger without a server.
				System.err.println("vertx-pg-control failed to start: " + ex);
				System.exit(1);
			});
	}

	@Override
	public Future<?> start() {
		// Created inside start() so the pool's connections live on this verticle's event loop.
		this.pool = PgBuilder.pool()
			.with(new PoolOptions().setMaxSize(POOL_SIZE_PER_EVENT_LOOP))
			.connectingTo(this.replicas)
			.using(this.vertx)
			.build();
		return this.vertx.createHttpServer().requestHandler(this::handle).listen(this.port);
	}

	private void handle(HttpServerRequest request) {
		String path = request.path();
		if (!path.startsWith(PREFIX)) {
			request.response().setStatusCode(404).end();
			return;
		}
		if (request.method() != HttpMethod.GET) {
			request.response().setStatusCode(405).putHeader(HttpHeaders.ALLOW, "GET").end();
			return;
		}
		UUID id = parseUuid(path.substring(PREFIX.length()));
		if (id == null) {
			request.response().setStatusCode(400).end();
			return;
		}
		this.pool.preparedQuery(SELECT_USER).execute(Tuple.of(id)).onComplete((result) -> {
			if (result.succeeded()) {
				respond(request, result.result());
			}
			else {
				if (!this.dbFailureLogged) {
					this.dbFailureLogged = true;
					System.err.println("database query failed (this event loop logs no further failures): " + result.cause());
				}
				request.response().setStatusCode(503).end();
			}
		});
	}

	private static void respond(HttpServerRequest request, RowSet<Row> rows) {
		if (rows.size() == 0) {
			request.response().setStatusCode(404).end();
			return;
		}
		Row row = rows.iterator().next();
		// JsonObject keeps insertion order and escapes the strings when encoding.
		String body = new JsonObject().put("id", row.getString(0))
			.put("first_name", row.getString(1))
			.put("second_name", row.getString(2))
			.put("birthdate", row.getString(3))
			.put("biography", row.getString(4))
			.put("city", row.getString(5))
			.encode();
		request.response().putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(body);
	}

	/**
	 * Accepts only the canonical 8-4-4-4-12 form: {@link UUID#fromString} alone also
	 * takes shortened groups such as {@code 1-2-3-4-5}, which is not a valid id here.
	 */
	static UUID parseUuid(String text) {
		if (text.length() != 36 || text.charAt(8) != '-' || text.charAt(13) != '-' || text.charAt(18) != '-'
				|| text.charAt(23) != '-') {
			return null;
		}
		try {
			return UUID.fromString(text);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private static List<SqlConnectOptions> replicas(String hostPorts, String database, String user, String password) {
		List<SqlConnectOptions> replicas = new ArrayList<>();
		for (String hostPort : hostPorts.split(",")) {
			String trimmed = hostPort.trim();
			int colon = trimmed.lastIndexOf(':');
			if (trimmed.isEmpty() || colon <= 0) {
				throw new IllegalArgumentException("REPLICAS must be host:port[,host:port...], got: " + hostPorts);
			}
			replicas.add(new PgConnectOptions().setHost(trimmed.substring(0, colon))
				.setPort(Integer.parseInt(trimmed.substring(colon + 1)))
				.setDatabase(database)
				.setUser(user)
				.setPassword(password)
				.setPipeliningLimit(PIPELINING_LIMIT)
				// Reuse server-side prepared statements, as pgjdbc does after a few executions.
				.setCachePreparedStatements(true));
		}
		return replicas;
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

}
