package dev.highload.profiles.seed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Values drawn with probability proportional to their weight, from a classpath file of
 * {@code value<TAB>weight} lines.
 */
final class WeightedList {

	private final String[] values;

	private final long[] cumulative;

	private WeightedList(String[] values, long[] cumulative) {
		this.values = values;
		this.cumulative = cumulative;
	}

	static WeightedList load(String resource) {
		List<String> values = new ArrayList<>();
		List<Long> weights = new ArrayList<>();
		InputStream in = WeightedList.class.getResourceAsStream("/seed/" + resource);
		if (in == null) {
			throw new IllegalStateException("Missing seed data /seed/" + resource);
		}
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				int tab = line.indexOf('\t');
				if (tab > 0) {
					long weight = Long.parseLong(line.substring(tab + 1).trim());
					if (weight <= 0) {
						throw new IllegalStateException("Non-positive weight in /seed/" + resource + ": " + line);
					}
					values.add(line.substring(0, tab));
					weights.add(weight);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		long[] cumulative = new long[weights.size()];
		long sum = 0;
		for (int i = 0; i < cumulative.length; i++) {
			sum += weights.get(i);
			cumulative[i] = sum;
		}
		return new WeightedList(values.toArray(String[]::new), cumulative);
	}

	String draw(SplittableRandom random) {
		long pick = random.nextLong(this.cumulative[this.cumulative.length - 1]);
		int index = Arrays.binarySearch(this.cumulative, pick + 1);
		return this.values[(index >= 0) ? index : -index - 1];
	}

}
