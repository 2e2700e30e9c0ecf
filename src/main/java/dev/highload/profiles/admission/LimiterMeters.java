package dev.highload.profiles.admission;

import java.util.function.Supplier;

import com.netflix.concurrency.limits.MetricRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The concurrency-limits library's meters as Micrometer meters named
 * {@code admission.<its id>}: the limit ({@code admission.limit}), each partition's share
 * of it ({@code admission.limit.partition}) and the calls by what became of them
 * ({@code admission.call}, status success, ignored, dropped or rejected). Its
 * distributions (the in-flight count sampled at every admission, the latency estimates
 * sampled at every change of the limit) are not kept: a summary recorded on every request
 * costs more than it tells beside the gauges.
 */
final class LimiterMeters implements MetricRegistry {

	static final String PREFIX = "admission.";

	private final MeterRegistry registry;

	LimiterMeters(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public SampleListener distribution(String id, String... tagNameValuePairs) {
		return (value) -> {
		};
	}

	@Override
	public void gauge(String id, Supplier<Number> supplier, String... tagNameValuePairs) {
		Gauge.builder(PREFIX + id, supplier).tags(tagNameValuePairs).register(this.registry);
	}

	@Override
	public MetricRegistry.Counter counter(String id, String... tagNameValuePairs) {
		io.micrometer.core.instrument.Counter counter = io.micrometer.core.instrument.Counter.builder(PREFIX + id)
			.tags(tagNameValuePairs)
			.register(this.registry);
		return counter::increment;
	}

}
