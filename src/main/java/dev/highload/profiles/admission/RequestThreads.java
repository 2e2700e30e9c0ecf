package dev.highload.profiles.admission;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.coyote.AbstractProtocol;
import org.apache.tomcat.util.threads.TaskQueue;
import org.apache.tomcat.util.threads.TaskThreadFactory;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;

/**
 * The API connector's request threads: Tomcat's own pool (its thread pool class, task
 * queue and thread factory, sized by {@code server.tomcat.threads.*}, as Tomcat builds it
 * when none is given), with one difference: each task is stamped with the time it was
 * handed to the pool, so that {@link AdmissionControl} sees how long a request waited for
 * a thread before it reached the admission filter.
 * <p>
 * That wait is where a request queues when more arrive than the service serves: the
 * poller hands every connection with bytes to read to the pool, and the pool's queue (one
 * task per open connection at most, {@code server.tomcat.max-connections}) is first in,
 * first out. Measured from the admission filter alone, a request that had waited a second
 * in it looked like one that had waited for nothing, and the limit saw no overload while
 * clients waited seconds (docs/reports/overload.md, "Judged from arrival"). Each task
 * also notes whether every thread was taken when it came
 * ({@link #queuedBehindBusyThreads()}): only then did it queue behind other requests.
 * <p>
 * Meters: {@code admission.queue.length}, the tasks waiting for a thread.
 */
class RequestThreads implements TomcatProtocolHandlerCustomizer<AbstractProtocol<?>>, DisposableBean {

	/** No task of the pool runs on this thread, or its time was taken already. */
	static final long NONE = Long.MIN_VALUE;

	/**
	 * For the task that runs on this thread: when it was handed to the pool, and 1 if
	 * every thread was taken at that moment (0 if one was free for it).
	 */
	private static final ThreadLocal<long[]> queuedSince = ThreadLocal.withInitial(() -> new long[] { NONE, 0 });

	private final TomcatServerProperties.Threads threads;

	private final MeterRegistry registry;

	private final List<ThreadPoolExecutor> pools = new CopyOnWriteArrayList<>();

	RequestThreads(TomcatServerProperties tomcat, MeterRegistry registry) {
		this.threads = tomcat.getThreads();
		this.registry = registry;
	}

	@Override
	public void customize(AbstractProtocol<?> protocol) {
		TaskQueue queue = new TaskQueue(this.threads.getMaxQueueCapacity());
		// As Tomcat does: never more spare threads than threads.
		int max = this.threads.getMax();
		ThreadPoolExecutor pool = new StampingPool(Math.min(this.threads.getMinSpare(), max), max, queue,
				new TaskThreadFactory("http-nio-" + protocol.getPort() + "-exec-", true, Thread.NORM_PRIORITY));
		queue.setParent(pool);
		protocol.setExecutor(pool);
		this.pools.add(pool);
		Gauge.builder(LimiterMeters.PREFIX + "queue.length", queue, TaskQueue::size)
			.description("API connections with bytes to read, waiting for a request thread")
			.tag("port", Integer.toString(protocol.getPort()))
			.register(this.registry);
	}

	/**
	 * Takes the time the task that runs on this thread was handed to the pool: once, so
	 * that a second request read by the same task (a pipelined one) is not timed from the
	 * first one's arrival.
	 * @return its {@link System#nanoTime()}, or {@link #NONE} outside a task of the pool
	 * or once taken
	 */
	static long takeQueuedSince() {
		long[] since = queuedSince.get();
		long value = since[0];
		since[0] = NONE;
		return value;
	}

	/**
	 * Whether the task that runs on this thread was handed to the pool while every thread
	 * was taken, so that it queued behind other requests. One that found a thread free
	 * waited for no other request: whatever it waited was the machine's (the wake-up of
	 * an idle thread on cores that other processes keep busy), and no request waited
	 * behind it.
	 * @return {@code true} when it queued behind busy threads; {@code false} when a
	 * thread was free for it, or outside a task of the pool
	 */
	static boolean queuedBehindBusyThreads() {
		return queuedSince.get()[1] == 1;
	}

	/**
	 * Tomcat shuts down only the pools it made itself; this one ends after the connector
	 * has stopped (the web server stops before the beans are destroyed).
	 */
	@Override
	public void destroy() throws InterruptedException {
		for (ThreadPoolExecutor pool : this.pools) {
			pool.shutdown();
		}
		for (ThreadPoolExecutor pool : this.pools) {
			pool.awaitTermination(5, TimeUnit.SECONDS);
		}
	}

	private static final class StampingPool extends ThreadPoolExecutor {

		StampingPool(int core, int max, TaskQueue queue, TaskThreadFactory threads) {
			super(core, max, 60, TimeUnit.SECONDS, queue, threads);
		}

		@Override
		public void execute(Runnable task) {
			// The tasks handed over and not yet finished, running or queued; at the
			// maximum, none of the threads is free for this one.
			boolean busy = getSubmittedCount() >= getMaximumPoolSize();
			super.execute(new Stamped(task, System.nanoTime(), busy));
		}

	}

	private record Stamped(Runnable task, long since, boolean busy) implements Runnable {

		@Override
		public void run() {
			long[] slot = queuedSince.get();
			slot[0] = this.since;
			slot[1] = this.busy ? 1 : 0;
			try {
				this.task.run();
			}
			finally {
				slot[0] = NONE;
				slot[1] = 0;
			}
		}

	}

}
