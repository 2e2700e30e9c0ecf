package dev.highload.profiles.gatling.monitor;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

import dev.highload.profiles.gatling.monitor.CpuSampler.Result;
import dev.highload.profiles.gatling.monitor.CpuSampler.Sample;
import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.CpuSampler.SeriesStats;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes a CPU run as CSV, a PNG chart (XChart) and a self-contained HTML page with the
 * same chart embedded.
 */
final class CpuReport {

	static {
		// Set before anything touches AWT: a load generator has no display.
		if (System.getProperty("java.awt.headless") == null) {
			System.setProperty("java.awt.headless", "true");
		}
	}

	static final int WIDTH = 1200;

	static final int HEIGHT = 500;

	/** Matplotlib's "tab10" colours, distinct for each series. */
	private static final List<Color> PALETTE = List.of(new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
			new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
			new Color(0xbcbd22), new Color(0x17becf));

	/**
	 * The local run's series keep their colours in every run; containers take the rest.
	 */
	private static final Map<Series, Integer> COLOURS = Map.of(Series.MACHINE, 7, Series.STEAL, 5, Series.SERVICE, 0,
			Series.PRIMARY, 3, Series.REPLICA1, 2, Series.REPLICA2, 4, Series.GATLING, 1);

	private static final List<Integer> OTHER_COLOURS = List.of(0, 6, 8, 9, 3, 2, 4);

	private CpuReport() {
	}

	static void write(Result result, Path csv, Path png, Path html) throws IOException {
		byte[] chart = BitmapEncoder.getBitmapBytes(chart(result), BitmapFormat.PNG);
		for (Path file : List.of(csv, png, html)) {
			if (file.toAbsolutePath().getParent() != null) {
				Files.createDirectories(file.toAbsolutePath().getParent());
			}
		}
		Files.writeString(csv, csv(result), StandardCharsets.UTF_8);
		Files.write(png, chart);
		Files.writeString(html, html(result, chart), StandardCharsets.UTF_8);
	}

	/**
	 * The CSV's first line: {@code second}, then one column per series.
	 * @param result the run
	 * @return the header, without a line end
	 */
	static String csvHeader(Result result) {
		return "second," + result.series().stream().map(Series::label).collect(Collectors.joining(","));
	}

	static String csv(Result result) {
		StringBuilder csv = new StringBuilder(csvHeader(result)).append('\n');
		for (Sample sample : result.samples()) {
			csv.append(sample.second());
			for (Series series : result.series()) {
				OptionalDouble value = sample.value(series);
				csv.append(',').append(value.isPresent() ? decimal(value.getAsDouble()) : "");
			}
			csv.append('\n');
		}
		return csv.toString();
	}

	static XYChart chart(Result result) {
		String title = String.format(Locale.ROOT, "CPU of %s, %% of one core (%d cores = %d %%)", result.title(),
				result.machineCores(), 100 * result.machineCores());
		XYChart chart = new XYChartBuilder().width(WIDTH)
			.height(HEIGHT)
			.title(title)
			.xAxisTitle("seconds")
			.yAxisTitle("% of one core")
			.build();
		XYStyler styler = chart.getStyler();
		styler.setYAxisMin(0.0);
		// One entry a line beside the plot: a row under it cut off the seventh entry, and
		// a
		// compose project can have a dozen containers.
		styler.setLegendPosition(LegendPosition.OutsideE);
		styler.setLegendLayout(Styler.LegendLayout.Vertical);
		styler.setChartBackgroundColor(Color.WHITE);
		styler.setPlotBackgroundColor(Color.WHITE);
		styler.setPlotBorderVisible(false);
		styler.setMarkerSize(0);
		double[] seconds = new double[result.samples().size()];
		for (int i = 0; i < seconds.length; i++) {
			seconds[i] = result.samples().get(i).second();
		}
		Map<Series, Color> colours = colours(result.series());
		for (Series series : result.series()) {
			SeriesStats stats = result.stats(series);
			if (!stats.present() || seconds.length == 0) {
				continue;
			}
			double[] values = new double[seconds.length];
			for (int i = 0; i < values.length; i++) {
				// NaN, a second without a value, is a gap in the line.
				values[i] = result.samples().get(i).value(series).orElse(Double.NaN);
			}
			String name = String.format(Locale.ROOT, "%s (avg %s, max %s)", series.label(), decimal(stats.average()),
					decimal(stats.max()));
			XYSeries line = chart.addSeries(name, seconds, values);
			line.setLineColor(colours.get(series));
			line.setMarker(SeriesMarkers.NONE);
			line.setLineStyle(new BasicStroke(Series.MACHINE.equals(series) ? 2.5f : 1.5f));
		}
		return chart;
	}

	private static String html(Result result, byte[] chart) {
		StringBuilder html = new StringBuilder();
		String title = "CPU of " + result.title();
		html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
			.append(escape(title))
			.append("</title>\n<style>\n")
			.append("body{font-family:sans-serif;margin:24px;color:#222}\n")
			.append("table{border-collapse:collapse;margin:16px 0}\n")
			.append("th,td{border:1px solid #ccc;padding:4px 10px}\n")
			.append("td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
			.append("img{max-width:100%;height:auto}\n")
			.append("</style>\n</head>\n<body>\n<h1>")
			.append(escape(title))
			.append("</h1>\n<p>")
			.append(result.samples().size())
			.append(" samples, one per second, in % of one core. This machine has ")
			.append(result.machineCores())
			.append(" cores, so ")
			.append(100 * result.machineCores())
			.append(" % is all of it. Written ")
			.append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
			.append(".</p>\n")
			.append("<img alt=\"CPU chart\" src=\"data:image/png;base64,")
			.append(Base64.getEncoder().encodeToString(chart))
			.append("\">\n")
			.append("<table>\n<tr><th>series</th><th>source</th><th>samples</th><th>avg %</th><th>max %</th></tr>\n");
		for (SeriesStats stats : result.stats()) {
			html.append("<tr><td>")
				.append(stats.series().label())
				.append("</td><td>")
				.append(escape(stats.source()))
				.append("</td><td class=\"n\">")
				.append(stats.samples())
				.append("</td><td class=\"n\">")
				.append(decimal(stats.average()))
				.append("</td><td class=\"n\">")
				.append(decimal(stats.max()))
				.append("</td></tr>\n");
		}
		html.append("</table>\n<details>\n<summary>every second</summary>\n<table>\n<tr>");
		for (String column : csvHeader(result).split(",")) {
			html.append("<th>").append(column).append("</th>");
		}
		html.append("</tr>\n");
		for (Sample sample : result.samples()) {
			html.append("<tr><td class=\"n\">").append(sample.second()).append("</td>");
			for (Series series : result.series()) {
				OptionalDouble value = sample.value(series);
				html.append("<td class=\"n\">")
					.append(value.isPresent() ? decimal(value.getAsDouble()) : "")
					.append("</td>");
			}
			html.append("</tr>\n");
		}
		html.append("</table>\n</details>\n</body>\n</html>\n");
		return html.toString();
	}

	/** One decimal, or {@code -} for no value. */
	static String decimal(double value) {
		return Double.isFinite(value) ? String.format(Locale.ROOT, "%.1f", value) : "-";
	}

	/**
	 * A colour per series: the local run's own, and for the others the palette's colours
	 * that no series of the run has taken yet, then all of them again.
	 */
	static Map<Series, Color> colours(List<Series> series) {
		Map<Series, Color> colours = new LinkedHashMap<>();
		List<Integer> free = new ArrayList<>(OTHER_COLOURS);
		series.stream().map(COLOURS::get).filter(Objects::nonNull).forEach(free::remove);
		int next = 0;
		for (Series one : series) {
			Integer known = COLOURS.get(one);
			int index = (known != null) ? known
					: !free.isEmpty() ? free.remove(0) : OTHER_COLOURS.get(next++ % OTHER_COLOURS.size());
			colours.put(one, PALETTE.get(index));
		}
		return colours;
	}

	static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
	}

}
