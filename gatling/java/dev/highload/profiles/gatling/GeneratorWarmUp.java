package dev.highload.profiles.gatling;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import static io.gatling.javaapi.core.CoreDsl.scenario;

/**
 * Warms the load generator's own JVM before it measures, on a stub server inside that
 * JVM, so that what a run's first seconds measure is the service and not Gatling
 * compiling itself. A fresh Gatling JVM answers its first seconds slowly whatever it
 * loads: against a service warmed for minutes, each freshly started step of
 * bench/capacity.py timed p99 77-89 ms over its first 5 s and single-digit milliseconds
 * after (docs/reports/overload.md, "The generator's first seconds").
 * <p>
 * The stub answers every request with 200 and a small JSON body. Its users run the
 * measured users' own chain (a new connection, ten reads, close) at the same ramp and
 * rate, so that the code they run is compiled; their requests are silent, in none of
 * Gatling's statistics. Started by {@link MonitoredSimulation#withGeneratorWarmUp} when
 * {@code -DgeneratorWarmUp} is set.
 */
final class GeneratorWarmUp implements AutoCloseable {

	static final String NAME = "generator warm-up";

	private static final byte[] BODY = "{\"id\":\"stub\",\"first_name\":\"Warm\",\"second_name\":\"Up\"}"
		.getBytes(StandardCharsets.UTF_8);

	private final HttpServer server;

	private final ExecutorService threads;

	private GeneratorWarmUp(HttpServer server, ExecutorService threads) {
		this.server = server;
		this.threads = threads;
	}

	/** A stub server on an ephemeral loopback port, already listening. */
	static GeneratorWarmUp start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 1024);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			server.setExecutor(threads);
			server.createContext("/", GeneratorWarmUp::answer);
			server.start();
			return new GeneratorWarmUp(server, threads);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("the generator's warm-up server did not start", ex);
		}
	}

	private static void answer(HttpExchange exchange) throws IOException {
		try (exchange; OutputStream body = exchange.getResponseBody()) {
			exchange.getRequestBody().readAllBytes();
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(200, BODY.length);
			body.write(BODY);
		}
	}

	/**
	 * The warm-up's users, arriving as {@code arrivals} says, each doing what a measured
	 * user does ({@code chain}), on the stub, through {@code protocol} pointed at it with
	 * every request silent.
	 */
	PopulationBuilder users(ChainBuilder chain, HttpProtocolBuilder protocol, OpenInjectionStep... arrivals) {
		return scenario(NAME).exec(chain).injectOpen(arrivals).protocols(protocol.baseUrl(baseUrl()).silentUri(".*"));
	}

	/** Where the stub listens: {@code http://127.0.0.1:<port>}. */
	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.threads.shutdownNow();
	}

}
