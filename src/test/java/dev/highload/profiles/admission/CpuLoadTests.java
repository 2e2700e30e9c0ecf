package dev.highload.profiles.admission;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class CpuLoadTests {

	@TempDir
	Path dir;

	@Test
	void thePressureIsTheTenSecondAverageOfSomeTaskWaiting() throws IOException {
		Path file = write("""
				some avg10=93.50 avg60=61.20 avg300=40.99 total=37948256217
				full avg10=0.00 avg60=0.00 avg300=0.00 total=0
				""");
		assertThat(CpuLoad.pressure(file)).isEqualTo(0.935);
	}

	@Test
	void aPressureThatCannotBeReadIsUnknownNotZero() throws IOException {
		assertThat(CpuLoad.pressure(this.dir.resolve("absent"))).isEqualTo(-1);
		assertThat(CpuLoad.pressure(write(""))).isEqualTo(-1);
		assertThat(CpuLoad.pressure(write("full avg10=5.00 avg60=0.00 avg300=0.00 total=0\n"))).isEqualTo(-1);
		assertThat(CpuLoad.pressure(write("some avg60=5.00 total=0\n"))).isEqualTo(-1);
		assertThat(CpuLoad.pressure(write("some avg10=x avg60=5.00 total=0\n"))).isEqualTo(-1);
	}

	@Test
	void anUnknownShareNeverReadsAsSaturated() {
		CpuLoad load = new CpuLoad(() -> new CpuLoad.Shares(-1, 1), () -> 0, new AdmissionProperties.Cpu(true, 0.9, 2,
				0.25, java.time.Duration.ofSeconds(1), AdmissionProperties.Measure.PRESSURE));
		assertThat(load.saturated()).isFalse();
	}

	private Path write(String text) throws IOException {
		Path file = Files.createTempFile(this.dir, "pressure", "");
		Files.writeString(file, text);
		return file;
	}

}
