package dev.highload.profiles.admission;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The request threads' pool as the connector gets it: each task knows when it was handed
 * over, and whether every thread was taken then.
 */
class RequestThreadsTests {

	private final RequestThreads threads;

	private final Executor pool;

	RequestThreadsTests() {
		TomcatServerProperties tomcat = new TomcatServerProperties();
		tomcat.getThreads().setMax(2);
		tomcat.getThreads().setMinSpare(2);
		this.threads = new RequestThreads(tomcat, new SimpleMeterRegistry());
		Http11NioProtocol protocol = new Http11NioProtocol();
		this.threads.customize(protocol);
		this.pool = protocol.getExecutor();
	}

	@AfterEach
	void shutDown() throws InterruptedException {
		this.threads.destroy();
	}

	@Test
	void aTaskThatFindsAThreadFreeDidNotQueueBehindOthers() throws Exception {
		Seen seen = run();
		assertThat(seen.since()).isNotEqualTo(RequestThreads.NONE);
		assertThat(seen.queued()).isFalse();
		// Taken once; and outside a task of the pool there is nothing to take.
		assertThat(RequestThreads.takeQueuedSince()).isEqualTo(RequestThreads.NONE);
		assertThat(RequestThreads.queuedBehindBusyThreads()).isFalse();
	}

	@Test
	void aTaskHandedOverWhileEveryThreadIsTakenQueuedBehindOthers() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch holding = new CountDownLatch(2);
		for (int i = 0; i < 2; i++) {
			this.pool.execute(() -> {
				holding.countDown();
				hold(release);
			});
		}
		assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Seen> behind = CompletableFuture.supplyAsync(this::run);
		Thread.sleep(50);
		release.countDown();
		Seen seen = behind.get(5, TimeUnit.SECONDS);
		assertThat(seen.queued()).isTrue();
		assertThat(seen.waitedNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(40));
		// Once the three have ended, a thread is free again.
		ThreadPoolExecutor tomcatPool = (ThreadPoolExecutor) this.pool;
		await().atMost(Duration.ofSeconds(5)).until(() -> tomcatPool.getSubmittedCount() == 0);
		assertThat(run().queued()).isFalse();
	}

	/** Runs one task on the pool and returns what it saw of itself. */
	private Seen run() {
		CompletableFuture<Seen> seen = new CompletableFuture<>();
		this.pool.execute(() -> {
			long since = RequestThreads.takeQueuedSince();
			seen.complete(new Seen(since, System.nanoTime() - since, RequestThreads.queuedBehindBusyThreads()));
		});
		return seen.orTimeout(5, TimeUnit.SECONDS).join();
	}

	private static void hold(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private record Seen(long since, long waitedNanos, boolean queued) {
	}

}
