package dev.highload.profiles.gatling.monitor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The command-line form's answer: running totals as one line of JSON. */
class CpuCountersTests {

	@Test
	void aReadingNamesTheMachineEachProcessAskedForAndEachNodeRunning(@TempDir Path cluster) throws Exception {
		// A data directory without a running postmaster, and a file beside it: neither is
		// a node.
		Files.createDirectories(cluster.resolve("primary"));
		Files.writeString(cluster.resolve("primary.log"), "");
		long self = ProcessHandle.current().pid();
		String reading = new CpuCounters(cluster, null).read(List.of(self, Long.MAX_VALUE), false);
		assertThat(reading).matches("\\{\"machine\": [0-9.]+, \"steal\": [0-9.]+, \"processes\": \\{\"" + self
				+ "\": \\{\"user\": [0-9.]+, \"system\": [0-9.]+, \"switches\": [1-9][0-9]*\\}, \"" + Long.MAX_VALUE
				+ "\": null\\}, \"postgres\": \\{\\}\\}");
	}

}
