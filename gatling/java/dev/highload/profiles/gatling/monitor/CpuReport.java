package dev.highload.profiles.gatling.monitor;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

import dev.highload.profiles.gatling.monitor.CpuSampler.Result;
import dev.highload.profiles.gatling.monitor.CpuSampler.Sample;
import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.CpuSampler.SeriesStats;

/**
 * Writes a CPU run as CSV, PNG and a self-contained HTML page.
 */
final class CpuReport {

	static final String CSV_HEADER = "second,"
			+ Arrays.stream(Series.values()).map(Series::label).collect(Collectors.joining(","));

	private CpuReport() {
	}

	static void write(Result result, Path csv, Path png, Path html) throws IOException {
		LineChart chart = chart(result);
		LineChart.createParent(csv);
		Files.writeString(csv, csv(result), StandardCharsets.UTF_8);
		chart.writePng(png);
		LineChart.createParent(html);
		Files.writeString(html, html(result, chart), StandardCharsets.UTF_8);
	}

	static String csv(Result result) {
		StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
		for (Sample sample : result.samples()) {
			csv.append(sample.second());
			for (Series series : Series.values()) {
				OptionalDouble value = sample.value(series);
				csv.append(',').append(value.isPresent() ? decimal(value.getAsDouble()) : "");
			}
			csv.append('\n');
		}
		return csv.toString();
	}

	static LineChart chart(Result result) {
		List<LineChart.Line> lines = new ArrayList<>();
		double[] seconds = new double[result.samples().size()];
		for (int i = 0; i < seconds.length; i++) {
			seconds[i] = result.samples().get(i).second();
		}
		for (Series series : Series.values()) {
			SeriesStats stats = result.stats(series);
			if (!stats.present()) {
				continue;
			}
			double[] values = new double[seconds.length];
			for (int i = 0; i < values.length; i++) {
				values[i] = result.samples().get(i).value(series).orElse(Double.NaN);
			}
			String name = String.format(Locale.ROOT, "%s (avg %s, max %s)", series.label(), decimal(stats.average()),
					decimal(stats.max()));
			lines.add(new LineChart.Line(name, color(series), series == Series.MACHINE, seconds, values));
		}
		String title = String.format(Locale.ROOT, "CPU of %s, %% of one core (%d cores = %d %%)", result.name(),
				result.machineCores(), 100 * result.machineCores());
		return new LineChart(title, "seconds", "% of one core", lines);
	}

	private static String html(Result result, LineChart chart) {
		StringBuilder html = new StringBuilder();
		String title = "CPU of " + result.name();
		html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
			.append(LineChart.escape(title))
			.append("</title>\n<style>\n")
			.append("body{font-family:sans-serif;margin:24px;color:#222}\n")
			.append("table{border-collapse:collapse;margin:16px 0}\n")
			.append("th,td{border:1px solid #ccc;padding:4px 10px}\n")
			.append("td.n{text-align:right;font-variant-numeric:tabular-nums}\n")
			.append("svg{max-width:100%;height:auto}\n")
			.append("</style>\n</head>\n<body>\n<h1>")
			.append(LineChart.escape(title))
			.append("</h1>\n<p>")
			.append(result.samples().size())
			.append(" samples, one per second, in % of one core. This machine has ")
			.append(result.machineCores())
			.append(" cores, so ")
			.append(100 * result.machineCores())
			.append(" % is all of it. Written ")
			.append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
			.append(".</p>\n")
			.append(chart.toSvg())
			.append("<table>\n<tr><th>series</th><th>source</th><th>samples</th><th>avg %</th><th>max %</th></tr>\n");
		for (SeriesStats stats : result.stats()) {
			html.append("<tr><td>")
				.append(stats.series().label())
				.append("</td><td>")
				.append(LineChart.escape(stats.source()))
				.append("</td><td class=\"n\">")
				.append(stats.samples())
				.append("</td><td class=\"n\">")
				.append(decimal(stats.average()))
				.append("</td><td class=\"n\">")
				.append(decimal(stats.max()))
				.append("</td></tr>\n");
		}
		html.append("</table>\n<details>\n<summary>every second</summary>\n<table>\n<tr>");
		for (String column : CSV_HEADER.split(",")) {
			html.append("<th>").append(column).append("</th>");
		}
		html.append("</tr>\n");
		for (Sample sample : result.samples()) {
			html.append("<tr><td class=\"n\">").append(sample.second()).append("</td>");
			for (Series series : Series.values()) {
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

	private static Color color(Series series) {
		return switch (series) {
			case MACHINE -> LineChart.color(7);
			case STEAL -> LineChart.color(5);
			case SERVICE -> LineChart.color(0);
			case PRIMARY -> LineChart.color(3);
			case REPLICA1 -> LineChart.color(2);
			case REPLICA2 -> LineChart.color(4);
			case GATLING -> LineChart.color(1);
		};
	}

}
