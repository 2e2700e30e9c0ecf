package dev.highload.profiles.gatling.monitor;

import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Set;

import javax.imageio.ImageIO;

import com.sun.net.httpserver.HttpServer;
import dev.highload.profiles.gatling.monitor.CpuSampler.Result;
import dev.highload.profiles.gatling.monitor.CpuSampler.Sample;
import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.CpuSampler.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CpuSamplerTests {

	private static final long SELF = ProcessHandle.current().pid();

	private static volatile long sink;

	@TempDir
	Path dir;

	@Test
	void samplesABusyThreadAndWritesTheReport() throws Exception {
		Path cluster = this.dir.resolve("cluster");
		Process postmaster = startTree();
		Process gone = new ProcessBuilder("true").start();
		gone.waitFor();
		try (ServerSocket service = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			// A live fake postmaster, a node without postmaster.pid and a stale one.
			writePid(cluster.resolve("primary"), postmaster.pid());
			writePid(cluster.resolve("replica2"), gone.pid());
			Settings settings = new Settings("http://127.0.0.1:" + service.getLocalPort(), "http://127.0.0.1:1",
					cluster, this.dir.resolve("out"), "self test");
			CpuSampler sampler = CpuSampler.start(settings);
			busy(2300);
			Result result = sampler.stop();

			assertThat(result.samples()).isNotEmpty();
			assertThat(result.stats(Series.GATLING).average()).isGreaterThan(30);
			assertThat(result.stats(Series.MACHINE).present()).isTrue();
			for (Sample sample : result.samples()) {
				assertThat(sample.value(Series.MACHINE)).isPresent();
				assertThat(sample.value(Series.MACHINE).getAsDouble()).isBetween(0.0, 100.0 * result.machineCores());
			}
			assertThat(result.stats(Series.SERVICE).present()).isTrue();
			assertThat(result.stats(Series.SERVICE).source()).startsWith("procfs pid " + SELF + ",");
			assertThat(result.stats(Series.PRIMARY).present()).isTrue();
			assertThat(result.stats(Series.PRIMARY).source()).startsWith("procfs pid " + postmaster.pid() + " + ");
			assertThat(result.stats(Series.REPLICA1).present()).isFalse();
			assertThat(result.stats(Series.REPLICA2).present()).isFalse();
			assertThat(result.summary()).contains("gatling", "not found", "avg %");

			assertThat(result.files()).extracting((file) -> file.getFileName().toString())
				.containsExactly("self_test-cpu.csv", "self_test-cpu.png", "self_test-cpu.html");
			List<String> csv = Files.readAllLines(result.files().get(0));
			assertThat(csv).hasSize(result.samples().size() + 1);
			assertThat(csv.get(0)).isEqualTo("second,machine,steal,service,primary,replica1,replica2,gatling");
			String[] row = csv.get(1).split(",", -1);
			assertThat(row).hasSize(8);
			assertThat(row[0]).isEqualTo(Long.toString(result.samples().get(0).second()));
			assertThat(row[1]).matches("\\d+\\.\\d");
			assertThat(row[2]).matches("\\d+\\.\\d");
			assertThat(row[5]).isEmpty();
			assertThat(row[6]).isEmpty();
			BufferedImage png = ImageIO.read(result.files().get(1).toFile());
			assertThat(png.getWidth()).isEqualTo(1200);
			assertThat(png.getHeight()).isEqualTo(500);
			String html = Files.readString(result.files().get(2));
			assertThat(html).contains("<img", "<table").doesNotContain("<script", "<link");
			// The page carries the chart itself: the PNG, inline.
			String inline = html.substring(html.indexOf("base64,") + "base64,".length(),
					html.indexOf("\">", html.indexOf("base64,")));
			assertThat(Base64.getDecoder().decode(inline)).isEqualTo(Files.readAllBytes(result.files().get(1)));
		}
		finally {
			destroyTree(postmaster);
		}
	}

	@Test
	void findsEveryDescendantOfAProcess() throws Exception {
		Process shell = startTree();
		try {
			Set<Long> tree = Set.of();
			// The shell forks its children right after it starts.
			for (int i = 0; i < 50 && tree.size() < 3; i++) {
				Thread.sleep(50);
				tree = ProcFs.processTree(shell.pid());
			}
			assertThat(tree).hasSizeGreaterThanOrEqualTo(3).contains(shell.pid());
			assertThat(tree).containsAll(shell.descendants().map(ProcessHandle::pid).toList());
		}
		finally {
			destroyTree(shell);
		}
	}

	@Test
	void findsTheProcessListeningOnAPort() throws IOException {
		// The default socket is dual-stack (/proc/net/tcp6); a loopback one is IPv4 only.
		try (ServerSocket any = new ServerSocket(0);
				ServerSocket loopback = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
			assertThat(ProcFs.listeningPid(any.getLocalPort())).hasValue(SELF);
			assertThat(ProcFs.listeningPid(loopback.getLocalPort())).hasValue(SELF);
		}
	}

	@Test
	void aListenerThatIsNoJavaProcessIsNotTakenForTheService() throws Exception {
		// As docker-proxy holds a port that Docker publishes for a container.
		Process python = new ProcessBuilder("python3", "-c",
				"import socket, time\n" + "s = socket.socket()\n" + "s.bind(('127.0.0.1', 0))\n" + "s.listen()\n"
						+ "print(s.getsockname()[1], flush=True)\n" + "time.sleep(30)\n")
			.redirectErrorStream(true)
			.start();
		try {
			int port = Integer
				.parseInt(new BufferedReader(new InputStreamReader(python.getInputStream(), StandardCharsets.US_ASCII))
					.readLine()
					.trim());
			assertThat(ProcFs.listeningPid(port)).hasValue(python.pid());
			assertThat(ProcFs.isJavaProcess(python.pid())).isFalse();
			assertThat(ProcFs.isJavaProcess(SELF)).isTrue();
			CpuSampler sampler = CpuSampler.start(new Settings("http://127.0.0.1:" + port, "http://127.0.0.1:1",
					this.dir.resolve("cluster"), this.dir.resolve("out"), "proxy"));
			assertThat(sampler.stop().stats(Series.SERVICE).source()).doesNotContain("pid " + python.pid());
		}
		finally {
			python.destroyForcibly().waitFor();
		}
	}

	@Test
	void readsTheServiceCpuFromItsActuator() throws IOException {
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		serve(server, "/actuator/metrics/process.cpu.usage", 0.25);
		serve(server, "/actuator/metrics/system.cpu.count", 4.0);
		server.start();
		try {
			ActuatorCpu actuator = new ActuatorCpu("http://127.0.0.1:" + server.getAddress().getPort() + "/");
			assertThat(actuator.percentOfOneCore()).hasValueCloseTo(100.0, within(1e-9));
			assertThat(actuator.cpuCount()).isEqualTo(4);
		}
		finally {
			server.stop(0);
		}
	}

	@Test
	void cpuSecondsAreTheAverageShareOfACoreTimesTheSecondsSampled() {
		List<CpuSampler.SeriesStats> stats = List.of(new CpuSampler.SeriesStats(Series.MACHINE, "m", 100, 150.0, 190.0),
				new CpuSampler.SeriesStats(Series.STEAL, "s", 100, 10.0, 20.0),
				new CpuSampler.SeriesStats(Series.SERVICE, "svc", 100, 50.0, 80.0),
				new CpuSampler.SeriesStats(Series.PRIMARY, "p", 0, Double.NaN, Double.NaN),
				new CpuSampler.SeriesStats(Series.REPLICA1, "r1", 0, Double.NaN, Double.NaN),
				new CpuSampler.SeriesStats(Series.REPLICA2, "r2", 0, Double.NaN, Double.NaN),
				new CpuSampler.SeriesStats(Series.GATLING, "g", 50, 40.0, 60.0));
		Result result = new Result("run", "", 2, List.of(), stats, List.of());
		// 100 s at 50 % of a core is 50 CPU-seconds; 50 s at 40 %, 20.
		assertThat(stats.get(2).cpuSeconds()).isEqualTo(50.0);
		assertThat(result.summary()).containsPattern("(?m)^machine +m +150\\.0 +190\\.0 +150\\.00$")
			.containsPattern("(?m)^steal +s +10\\.0 +20\\.0 +10\\.00$")
			.containsPattern("(?m)^service +svc +50\\.0 +80\\.0 +50\\.00$")
			.containsPattern("(?m)^primary +p +- +- +-$")
			.containsPattern("(?m)^gatling +g +40\\.0 +60\\.0 +20\\.00$");
	}

	@Test
	void parsesACommandNameWithSpacesAndParentheses() {
		String stat = "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 37 5 6 20 0 3 0 98765 1000 10";
		ProcFs.ProcStat parsed = ProcFs.parseStat(4242, stat);
		assertThat(parsed).isEqualTo(new ProcFs.ProcStat(4242, 17, 250, 37, 11, 98765));
		assertThat(parsed.ticks()).isEqualTo(287);
	}

	@Test
	void parsesMachineTimesWithoutCountingGuestTwiceOrStealAsBusy() {
		String stat = "cpu  100 10 50 800 40 5 5 20 30 0\ncpu0 50 5 25 400 20 2 3 10 15 0\ncpu1 50 5 25 400 20 3 2 10 15 0\n";
		ProcFs.MachineTimes times = ProcFs.parseMachineTimes(stat);
		assertThat(times.total()).isEqualTo(1030);
		assertThat(times.busy()).isEqualTo(170);
		assertThat(times.steal()).isEqualTo(20);
		assertThat(times.cores()).isEqualTo(2);
	}

	private static Process startTree() throws IOException {
		return new ProcessBuilder("sh", "-c", "sleep 5 & sleep 5 & wait").start();
	}

	private static void destroyTree(Process process) {
		process.descendants().forEach(ProcessHandle::destroy);
		process.destroy();
	}

	private static void writePid(Path dataDir, long pid) throws IOException {
		Files.createDirectories(dataDir);
		Files.writeString(dataDir.resolve("postmaster.pid"), pid + "\n" + dataDir + "\n1700000000\n15432\n");
	}

	private static void busy(long millis) throws InterruptedException {
		Thread spinner = new Thread(() -> {
			long end = System.nanoTime() + millis * 1_000_000;
			long count = 0;
			while (System.nanoTime() < end) {
				count++;
			}
			sink = count;
		});
		spinner.start();
		spinner.join();
	}

	private static void serve(HttpServer server, String path, double value) {
		byte[] body = ("{\"availableTags\":[],\"description\":\"The \\\"recent\\\" value\",\"measurements\":"
				+ "[{\"statistic\":\"VALUE\",\"value\":" + value + "}],\"name\":\"x\"}")
			.getBytes(StandardCharsets.UTF_8);
		server.createContext(path, (exchange) -> {
			exchange.getResponseHeaders().add("Content-Type", "application/vnd.spring-boot.actuator.v3+json");
			exchange.sendResponseHeaders(200, body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		});
	}

}
