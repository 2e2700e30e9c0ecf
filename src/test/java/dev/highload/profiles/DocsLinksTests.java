package dev.highload.profiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and docs/ name only files that exist ({@link DocsLinks}), and the check
 * itself fails on what a reader would trip over: a renamed script, a link to a moved
 * page, a heading that is gone.
 */
class DocsLinksTests {

	@TempDir
	Path repository;

	private DocsLinks links;

	@BeforeEach
	void aSmallRepository() throws IOException {
		Files.createDirectories(this.repository.resolve("bench/controls"));
		Files.createDirectories(this.repository.resolve("docs/reports"));
		Files.createDirectories(this.repository.resolve("src/test/java/dev/highload/profiles/cluster"));
		Files.createDirectories(this.repository.resolve("target/readme"));
		Files.writeString(this.repository.resolve(".gitignore"), "target/\n.data/\n*.log\n");
		Files.writeString(this.repository.resolve("bench/load-test.py"), "");
		Files.writeString(this.repository.resolve("src/test/java/dev/highload/profiles/cluster/NodeFaults.java"), "");
		Files.writeString(this.repository.resolve("docs/api.md"), "# API\n\n## Abuse limits\n\n## Abuse limits\n");
		this.links = new DocsLinks(this.repository);
	}

	@Test
	void theReadmeAndEveryPageUnderDocsNameOnlyWhatExists() {
		assertThat(new DocsLinks(Path.of("")).check()).isEmpty();
	}

	@Test
	void aPathThatIsNotInTheTreeFails() {
		assertThat(this.links.check("docs/testing.md", "Run `bench/load-test.py`, then\nbench/load-tests.py.\n"))
			.containsExactly("docs/testing.md:2: no such path: bench/load-tests.py");
	}

	@Test
	void aPathInACodeBlockIsCheckedToo() {
		assertThat(this.links.check("README.md", "```bash\npython3 bench/smoke.py --help\n```\n"))
			.containsExactly("README.md:2: no such path: bench/smoke.py");
	}

	@Test
	void aLinkToAMissingFileOrHeadingFails() {
		String page = """
				[API](api.md#abuse-limits-1), [limits](api.md#limits), [gone](operations.md),
				[here](#api), [the bench](../bench/controls/), [RFC](https://www.rfc-editor.org/rfc/rfc9457)
				""";
		assertThat(this.links.check("docs/testing.md", page)).containsExactly(
				"docs/testing.md:1: link to a missing heading: api.md#limits",
				"docs/testing.md:1: link to a missing file: operations.md",
				"docs/testing.md:2: link to a missing heading: #api");
	}

	@Test
	void patternsGeneratedDirectoriesAndOtherNamespacesAreNotPaths() {
		String page = """
				Each run in docs/<simulation>-<users>[-<label>]/ and bench/*.sh; `target/readme/report.txt`,
				.data/user-ids.csv, `git show 4f7889a:bench/cold-start.py`, localhost:8081/bench/x,
				~/.docker/cli-plugins, user/register, /bench/etc.
				""";
		assertThat(this.links.check("docs/testing.md", page)).isEmpty();
	}

	@Test
	void elidedDirectoriesAndClassNamesResolve() {
		assertThat(this.links.check("docs/reliability.md",
				"`src/test/java/.../cluster/NodeFaults` and src/test/java/.../cluster/, not src/test/java/.../routing/"))
			.containsExactly("docs/reliability.md:1: no such path: src/test/java/.../routing/");
	}

	@Test
	void aClassNamedByItsPackageMustExist() {
		assertThat(
				this.links.check("docs/operations.md", "`cluster/NodeFaults`, not `cluster/ReadRouter`; cluster/nodes"))
			.containsExactly("docs/operations.md:1: no such path: cluster/ReadRouter");
	}

	@Test
	void aReferencePageMayNameARetiredFileOnlyWhereItSaysWhenItLived() {
		String page = """
				Its tool lived at commit 4f7889a (`bench/cold-start.py`), and was retired at 4f7889a.
				Run `bench/cold-start.py`.
				""";
		assertThat(this.links.check("docs/load-testing.md", page))
			.containsExactly("docs/load-testing.md:2: no such path: bench/cold-start.py");
	}

	@Test
	void aRecordOfRunsDeclaresItsRetiredFilesOnceForThePage() {
		String page = """
				Retired at 4f7889a, named here as they ran: `bench/load-test.sh`.

				`bash bench/load-test.sh 250000`: p99 3 ms; `bench/saturation.sh` after it.
				""";
		assertThat(this.links.check("docs/reports/load-testing.md", page))
			.containsExactly("docs/reports/load-testing.md:3: no such path: bench/saturation.sh");
	}

}
