package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A line chart of latencies over time, for example the p99 of each second, drawn the same
 * way as the CPU chart of {@link CpuSampler}: 1200x500 PNG, one coloured line per series,
 * seconds on the x axis and milliseconds on the y axis.
 */
public final class LatencyChart {

	private LatencyChart() {
	}

	/**
	 * Draws the series and writes the chart as a PNG, creating the parent directories.
	 * @param file where to write the PNG
	 * @param title the chart's title
	 * @param series the lines, in legend order; a NaN value leaves a gap
	 * @throws UncheckedIOException if the file cannot be written (unchecked, so that it
	 * can be called from a simulation's {@code after()} hook)
	 */
	public static void writePng(Path file, String title, List<Series> series) {
		List<LineChart.Line> lines = new ArrayList<>();
		for (int i = 0; i < series.size(); i++) {
			Series one = series.get(i);
			lines.add(new LineChart.Line(one.name(), LineChart.color(i), false, one.xSeconds(), one.yMillis()));
		}
		try {
			new LineChart(title, "seconds", "ms", lines).writePng(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write " + file, ex);
		}
	}

	/**
	 * One line of a latency chart.
	 *
	 * @param name shown in the legend
	 * @param xSeconds the time of each point, in seconds from the start of the run
	 * @param yMillis the latency at each point, in milliseconds; NaN for no value
	 */
	public record Series(String name, double[] xSeconds, double[] yMillis) {

		public Series {
			Objects.requireNonNull(name, "name");
			Objects.requireNonNull(xSeconds, "xSeconds");
			Objects.requireNonNull(yMillis, "yMillis");
			if (xSeconds.length != yMillis.length) {
				throw new IllegalArgumentException(
						"xSeconds has " + xSeconds.length + " values but yMillis has " + yMillis.length);
			}
			xSeconds = xSeconds.clone();
			yMillis = yMillis.clone();
		}

		@Override
		public double[] xSeconds() {
			return this.xSeconds.clone();
		}

		@Override
		public double[] yMillis() {
			return this.yMillis.clone();
		}

		@Override
		public boolean equals(Object other) {
			return this == other || (other instanceof Series that && this.name.equals(that.name)
					&& Arrays.equals(this.xSeconds, that.xSeconds) && Arrays.equals(this.yMillis, that.yMillis));
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.name, Arrays.hashCode(this.xSeconds), Arrays.hashCode(this.yMillis));
		}

		@Override
		public String toString() {
			return "Series[name=" + this.name + ", points=" + this.xSeconds.length + "]";
		}

	}

}
