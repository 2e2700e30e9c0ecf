package dev.highload.profiles.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;

/**
 * Replication lag as metrics, for dashboards, as the primary sees it in
 * pg_stat_replication (through {@link Standbys}): per standby ({@code replica} tag, its
 * application_name), the WAL bytes it has not replayed yet
 * ({@code profiles.replication.lag}, bytes) and PostgreSQL's {@code replay_lag}
 * ({@code profiles.replication.replay.lag}, seconds; 0 when the standby has replayed
 * everything and PostgreSQL reports none). {@code profiles.replication.standbys} counts
 * the standbys streaming. A standby that is not connected has no lag series at all.
 * <p>
 * Read every few seconds over the write pool on a thread of its own, so a scrape never
 * waits for the database. While the primary cannot be asked, the count is NaN and there
 * are no lag series.
 */
@Component
class ReplicationMetrics implements MeterBinder, DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(ReplicationMetrics.class);

	private static final long PERIOD_SECONDS = 5;

	private static final String SQL = """
			SELECT application_name, state,
			       pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS lag_bytes,
			       coalesce(extract(epoch FROM replay_lag), 0) AS replay_lag_seconds
			FROM {standbys}""";

	private final DataSource primary;

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "replication-metrics");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicReference<Double> streaming = new AtomicReference<>(Double.NaN);

	private final Standbys standbys;

	ReplicationMetrics(@Qualifier("writeDataSource") DataSource primary, Standbys standbys) {
		this.primary = primary;
		this.standbys = standbys;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("profiles.replication.standbys", this.streaming, AtomicReference::get)
			.description("Standbys streaming from the primary")
			.register(registry);
		MultiGauge lagBytes = MultiGauge.builder("profiles.replication.lag")
			.description("WAL bytes a standby has not replayed yet")
			.baseUnit("bytes")
			.register(registry);
		MultiGauge replayLag = MultiGauge.builder("profiles.replication.replay.lag")
			.description("replay_lag of a standby in pg_stat_replication")
			.baseUnit("seconds")
			.register(registry);
		this.scheduler.scheduleWithFixedDelay(() -> refresh(lagBytes, replayLag), 0, PERIOD_SECONDS, TimeUnit.SECONDS);
	}

	private void refresh(MultiGauge lagBytes, MultiGauge replayLag) {
		List<MultiGauge.Row<?>> bytes = new ArrayList<>();
		List<MultiGauge.Row<?>> seconds = new ArrayList<>();
		try (Connection connection = this.primary.getConnection()) {
			int streamingNow = this.standbys.query(connection, SQL, (rs) -> {
				int count = 0;
				while (rs.next()) {
					String state = rs.getString("state");
					if (state == null) {
						// Read from pg_stat_replication without the right to see it.
						continue;
					}
					Tags tags = Tags.of("replica", rs.getString("application_name"));
					bytes.add(MultiGauge.Row.of(tags, rs.getDouble("lag_bytes")));
					seconds.add(MultiGauge.Row.of(tags, rs.getDouble("replay_lag_seconds")));
					if ("streaming".equals(state)) {
						count++;
					}
				}
				return count;
			});
			this.streaming.set((double) streamingNow);
		}
		catch (SQLException | RuntimeException ex) {
			log.debug("Could not read the standbys on the primary", ex);
			this.streaming.set(Double.NaN);
		}
		lagBytes.register(bytes, true);
		replayLag.register(seconds, true);
	}

	@Override
	public void destroy() {
		this.scheduler.shutdownNow();
	}

}
