package dev.highload.profiles.gatling.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.highload.profiles.gatling.monitor.Cgroups.CpuCounter;
import dev.highload.profiles.gatling.monitor.Cgroups.Version;
import dev.highload.profiles.gatling.monitor.ContainerCpu.Tracked;
import dev.highload.profiles.gatling.monitor.CpuSampler.Result;
import dev.highload.profiles.gatling.monitor.CpuSampler.Sample;
import dev.highload.profiles.gatling.monitor.CpuSampler.Series;
import dev.highload.profiles.gatling.monitor.CpuSampler.SeriesStats;
import dev.highload.profiles.gatling.monitor.Docker.Container;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The containers' CPU: cgroup v1 and v2 files as Docker lays them out, in a temporary
 * directory that the fixtures' mountinfo mounts; what docker inspect prints; the series
 * they become and the report that names them.
 */
class ContainerCpuTests {

	private static final String ID = "1b1c9469656945f47c8dd5c92d1191e370e400ef54dcde9551c5d8bcb16f71fc";

	private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

	@TempDir
	Path dir;

	@Test
	void findsTheContainerIdWhateverTheCgroupDriver() {
		// cgroup v1 with the cgroupfs driver, as on this project's machines.
		assertThat(Cgroups.containerId("12:cpu,cpuacct:/docker/" + ID + "\n0::/docker/" + ID + "\n")).hasValue(ID);
		// cgroup v2 with the systemd driver.
		assertThat(Cgroups.containerId("0::/system.slice/docker-" + ID + ".scope\n")).hasValue(ID);
		// A process of the host, and one in a systemd service that is no container.
		assertThat(Cgroups.containerId("2:cpuacct:/\n0::/\n")).isEmpty();
		assertThat(Cgroups.containerId("0::/system.slice/docker.service\n")).isEmpty();
	}

	@Test
	void readsCgroupV1CpuacctUsageInNanoseconds() throws IOException {
		// Docker's cgroupfs driver on a v1 host with a hybrid unified mount, as here.
		Path cpuacct = write(this.dir.resolve("sys/fs/cgroup/cpuacct/docker/" + ID + "/cpuacct.usage"),
				"29691789458\n");
		String mountinfo = mount("cgroup", this.dir.resolve("sys/fs/cgroup/cpu"), "/", "rw,cpu")
				+ mount("cgroup", this.dir.resolve("sys/fs/cgroup/cpuacct"), "/", "rw,cpuacct")
				+ mount("cgroup2", this.dir.resolve("sys/fs/cgroup/unified"), "/", "rw");
		String procCgroup = "9:name=systemd:/docker/" + ID + "\n2:cpuacct:/docker/" + ID + "\n1:cpu:/docker/" + ID
				+ "\n0::/docker/" + ID + "\n";

		Optional<CpuCounter> counter = Cgroups.cpuCounter(procCgroup, mountinfo);

		assertThat(counter).contains(new CpuCounter(cpuacct, Version.V1));
		assertThat(counter.get().nanos()).isEqualTo(29_691_789_458L);
	}

	@Test
	void readsCgroupV1WhereCpuAndCpuacctShareAHierarchy() throws IOException {
		Path cpuacct = write(
				this.dir.resolve("sys/fs/cgroup/cpu,cpuacct/system.slice/docker-" + ID + ".scope/cpuacct.usage"),
				"1000\n");
		String mountinfo = mount("cgroup", this.dir.resolve("sys/fs/cgroup/cpu,cpuacct"), "/", "rw,cpu,cpuacct");

		assertThat(Cgroups.cpuCounter("4:cpu,cpuacct:/system.slice/docker-" + ID + ".scope\n", mountinfo))
			.contains(new CpuCounter(cpuacct, Version.V1));
	}

	@Test
	void readsCgroupV2UsageUsecAsNanoseconds() throws IOException {
		// The systemd driver on a unified host: the scope Docker's systemd makes.
		Path stat = write(this.dir.resolve("sys/fs/cgroup/system.slice/docker-" + ID + ".scope/cpu.stat"),
				"usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 0\n");
		String mountinfo = mount("cgroup2", this.dir.resolve("sys/fs/cgroup"), "/", "rw,nsdelegate");

		Optional<CpuCounter> counter = Cgroups.cpuCounter("0::/system.slice/docker-" + ID + ".scope\n", mountinfo);

		assertThat(counter).contains(new CpuCounter(stat, Version.V2));
		assertThat(counter.get().nanos()).isEqualTo(2_500_000_000L);
	}

	@Test
	void takesCgroupV2WhenNoV1CpuacctFileIsThere() throws IOException {
		// A hybrid host whose cpuacct hierarchy does not hold the container.
		Path stat = write(this.dir.resolve("unified/docker/" + ID + "/cpu.stat"), "usage_usec 7\n");
		String mountinfo = mount("cgroup", this.dir.resolve("cpuacct"), "/", "rw,cpuacct")
				+ mount("cgroup2", this.dir.resolve("unified"), "/", "rw");

		assertThat(Cgroups.cpuCounter("2:cpuacct:/docker/" + ID + "\n0::/docker/" + ID + "\n", mountinfo))
			.contains(new CpuCounter(stat, Version.V2));
	}

	@Test
	void resolvesAMountOfPartOfTheHierarchyAndEscapedMountPoints() throws IOException {
		// In a cgroup namespace the mount's root is the namespace's cgroup; mountinfo
		// writes a space in a path as \040.
		Path stat = write(this.dir.resolve("with space/cpu.stat"), "usage_usec 1\n");
		String mountinfo = "30 25 0:26 /docker/" + ID + " "
				+ this.dir.resolve("with space").toString().replace(" ", "\\040")
				+ " rw,nosuid shared:4 - cgroup2 cgroup2 rw\n";

		assertThat(Cgroups.cpuCounter("0::/docker/" + ID + "\n", mountinfo)).contains(new CpuCounter(stat, Version.V2));
		assertThat(Cgroups.cpuCounter("0::/elsewhere\n", mountinfo)).isEmpty();
	}

	@Test
	void aCgroupWithoutItsFileHasNoCounter() {
		String mountinfo = mount("cgroup", this.dir.resolve("cpuacct"), "/", "rw,cpuacct")
				+ mount("cgroup2", this.dir.resolve("unified"), "/", "rw");

		assertThat(Cgroups.cpuCounter("2:cpuacct:/docker/" + ID + "\n0::/docker/" + ID + "\n", mountinfo)).isEmpty();
	}

	@Test
	void parsesDockerInspectAndNamesContainersAfterTheirComposeServices() {
		String inspect = ID + "\t/profiles-load-app-1\t23095\tprofiles-load\tapp\t1\n"
				+ "b9907ee73cf6\t/profiles-load-replica1-1\t2301\tprofiles-load\treplica1\t1\n"
				+ "a4e99c1a5339\t/profiles-load-primary-1\t2290\tprofiles-load\tprimary\t1\n"
				+ "5234ceb69e90\t/loose\t77\t<no value>\t<no value>\t<no value>\n" + "not a container line\n";

		List<Container> containers = Docker.parseInspect(inspect);

		assertThat(containers).containsExactly(
				new Container(ID, "profiles-load-app-1", 23095, "profiles-load", "app", "1"),
				new Container("b9907ee73cf6", "profiles-load-replica1-1", 2301, "profiles-load", "replica1", "1"),
				new Container("a4e99c1a5339", "profiles-load-primary-1", 2290, "profiles-load", "primary", "1"),
				new Container("5234ceb69e90", "loose", 77, "", "", ""));
		assertThat(containers.get(0).shortId()).isEqualTo("1b1c94696569");
		assertThat(ContainerCpu.named(containers).keySet()).extracting(Series::label)
			.containsExactly("app", "loose", "primary", "replica1");
	}

	@Test
	void numbersTheContainersOfAServiceThatHasSeveralAndKeepsTheSamplersOwnNames() {
		List<Container> containers = List.of(new Container("c", "p-app-2", 3, "p", "app", "2"),
				new Container("b", "p-app-1", 2, "p", "app", "1"), new Container("a", "p-pg1-1", 1, "p", "pg1", "1"),
				new Container("d", "p-gatling-1", 4, "p", "gatling", "1"));

		assertThat(ContainerCpu.named(containers).keySet()).extracting(Series::label)
			.containsExactly("app-1", "app-2", "container-gatling", "pg1");
	}

	@Test
	void eachContainerIsItsCgroupsCpuTimeOverTheTimeBetweenTwoReadings() throws IOException {
		Path app = write(this.dir.resolve("app/cpuacct.usage"), "1000000000\n");
		Path primary = write(this.dir.resolve("primary/cpu.stat"), "usage_usec 0\n");
		AtomicLong clock = new AtomicLong(5 * SECOND);
		Map<Series, Tracked> tracked = new LinkedHashMap<>();
		tracked.put(new Series("app"), new Tracked("container p-app-1", new CpuCounter(app, Version.V1), clock::get));
		tracked.put(Series.PRIMARY,
				new Tracked("container p-primary-1", new CpuCounter(primary, Version.V2), clock::get));
		ContainerCpu containers = new ContainerCpu("p", tracked, List::of, clock::get);

		// Half a core for the service and one and a half for the primary, over 2 s.
		clock.addAndGet(2 * SECOND);
		write(app, "2000000000\n");
		write(primary, "usage_usec 3000000\n");
		Map<Series, Double> first = containers.sample();
		// The primary's container stopped; the service's restarted and counts from 0.
		clock.addAndGet(SECOND);
		write(app, "250000000\n");
		Files.delete(primary);
		Map<Series, Double> second = containers.sample();

		assertThat(containers.series()).containsExactly(new Series("app"), Series.PRIMARY);
		assertThat(containers.project()).isEqualTo("p");
		assertThat(containers.sources()).containsEntry(Series.PRIMARY, "container p-primary-1");
		assertThat(first.get(new Series("app"))).isCloseTo(50.0, within(1e-9));
		assertThat(first.get(Series.PRIMARY)).isCloseTo(150.0, within(1e-9));
		assertThat(second.get(new Series("app"))).isCloseTo(25.0, within(1e-9));
		assertThat(second).doesNotContainKey(Series.PRIMARY);
	}

	@Test
	void theReportNamesTheContainersAndTheirProject() {
		Series app = new Series("app");
		List<Sample> samples = List.of(new Sample(1, Map.of(Series.MACHINE, 120.0, Series.STEAL, 0.0, app, 80.0,
				Series.PRIMARY, 10.0, Series.GATLING, 30.0)));
		List<SeriesStats> stats = List.of(SeriesStats.of(Series.MACHINE, "procfs /proc/stat, without steal", samples),
				SeriesStats.of(Series.STEAL, "procfs /proc/stat, steal", samples),
				SeriesStats.of(app, "container profiles-load-app-1 (1b1c94696569), cgroup v1, listens on port 8080",
						samples),
				SeriesStats.of(Series.PRIMARY, "container profiles-load-primary-1 (a4e99c1a5339), cgroup v1", samples),
				SeriesStats.of(Series.GATLING, "procfs pid 42", samples));
		Result result = new Result("getusersimulation-250000", "profiles-load", 2, samples, stats, List.of());

		assertThat(result.series()).containsExactly(Series.MACHINE, Series.STEAL, app, Series.PRIMARY, Series.GATLING);
		assertThat(CpuReport.csv(result))
			.isEqualTo("second,machine,steal,app,primary,gatling\n1,120.0,0.0,80.0,10.0,30.0\n");
		assertThat(result.summary()).contains("getusersimulation-250000, containers of compose project profiles-load")
			.containsPattern(
					"(?m)^app +container profiles-load-app-1 \\(1b1c94696569\\), cgroup v1, listens on port 8080 +80\\.0 +80\\.0 +0\\.80$")
			.containsPattern("(?m)^primary +container profiles-load-primary-1 ");
		assertThat(result.stats(Series.SERVICE).source()).isEqualTo("not recorded");
		assertThat(CpuReport.chart(result).getTitle()).contains("compose project profiles-load");
		assertThat(CpuReport.chart(result).getSeriesMap().keySet())
			.anyMatch((name) -> name.startsWith("app (avg 80.0"));
		assertThat(CpuReport.colours(result.series()).values()).doesNotHaveDuplicates();
	}

	private static Path write(Path file, String text) throws IOException {
		Files.createDirectories(file.getParent());
		return Files.writeString(file, text);
	}

	/** A line of /proc/self/mountinfo for a cgroup file system. */
	private static String mount(String type, Path point, String root, String superOptions) {
		return "35 31 0:32 " + root + " " + point + " rw,nosuid,nodev,noexec,relatime shared:9 - " + type + " " + type
				+ " " + superOptions + "\n";
	}

}
