package dev.highload.profiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What README.md and the pages under docs/ say about the repository, checked against the
 * tree:
 * <ul>
 * <li>every relative Markdown link {@code [text](target)} names a file or directory that
 * exists, relative to its page, and a {@code #fragment} into a Markdown page names one of
 * its headings (GitHub's anchors);</li>
 * <li>every repository path in the text, in inline code and in code blocks exists: a
 * token with a slash whose first segment is a top-level directory of the repository
 * ({@code bench/load-test.py}, {@code docker/ha/patroni.yml}, {@code src/main/...}).
 * Generated directories (those .gitignore names, such as target/ and .data/) are not
 * checked. A segment {@code ...} stands for any directories, and a last segment without
 * an extension may name a Java class ({@code src/test/java/.../cluster/NodeFaults}).
 * Patterns ({@code <n>}, {@code *}, {@code {a,b}}, {@code $VAR}, {@code [-<label>]}) and
 * a path right after a colon ({@code git show 4f7889a:bench/x.sh},
 * {@code host:port/path}) are not paths of today's tree.</li>
 * <li>every class named by its package, as the pages name them
 * ({@code database/DatabaseProperties}, {@code cluster/NodeFaults}), is a class of the
 * service, its tests or the simulations.</li>
 * </ul>
 * Retired files may be named where the text says when they lived: a line that says
 * {@code at commit <sha>} or {@code retired at <sha>} may name paths that no longer
 * exist. In records of runs (docs/reports/ and docs/load-tests/), such a line declares
 * its paths retired for the whole page, so a report can name the tool a past run used
 * wherever it quotes that run; any other missing path still fails there.
 */
final class DocsLinks {

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

	private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

	private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

	/** Maximal runs of path characters; a run right after a colon is not a path here. */
	private static final Pattern TOKEN = Pattern.compile("(?<![\\w.\\-/<>*{}$~:])[\\w.\\-/<>*{}$]+");

	private static final Pattern PLACEHOLDER = Pattern.compile("[<>*{}$]");

	private static final Pattern HISTORIC = Pattern.compile("\\b(?i:at commit|retired at) `?[0-9a-f]{7,40}\\b");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern HEADING_LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");

	private static final List<String> SOURCE_ROOTS = List.of("src/main/java/dev/highload/profiles",
			"src/test/java/dev/highload/profiles", "gatling/java/dev/highload/profiles/gatling");

	private final Path root;

	private final Set<String> topLevelDirectories;

	/** Where a class named by its package ({@code routing/ReadRouter}) may live. */
	private final List<Path> sourceRoots;

	private final Set<String> packages;

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	DocsLinks(Path root) {
		this.root = root.toAbsolutePath().normalize();
		this.topLevelDirectories = topLevelDirectories(this.root);
		this.sourceRoots = SOURCE_ROOTS.stream().map(this.root::resolve).filter(Files::isDirectory).toList();
		this.packages = new TreeSet<>();
		for (Path sources : this.sourceRoots) {
			try (Stream<Path> children = Files.list(sources)) {
				children.filter(Files::isDirectory).forEach((p) -> this.packages.add(p.getFileName().toString()));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	/**
	 * Checks README.md and every Markdown page under docs/.
	 * @return what does not exist, one line each ({@code page:line: ...})
	 */
	List<String> check() {
		List<Path> pages = new ArrayList<>(List.of(this.root.resolve("README.md")));
		try (Stream<Path> docs = Files.walk(this.root.resolve("docs"))) {
			docs.filter((p) -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<String> problems = new ArrayList<>();
		for (Path page : pages) {
			problems.addAll(check(this.root.relativize(page).toString().replace('\\', '/'), read(page)));
		}
		return problems;
	}

	/**
	 * Checks one page.
	 * @param page its path from the repository's root, which its links are relative to
	 * @param markdown its text
	 * @return what does not exist, one line each ({@code page:line: ...})
	 */
	List<String> check(String page, String markdown) {
		String[] lines = markdown.split("\n", -1);
		Set<String> retiredOnPage = (page.startsWith("docs/reports/") || page.startsWith("docs/load-tests/"))
				? retiredPaths(lines) : Set.of();
		List<String> problems = new ArrayList<>();
		boolean fenced = false;
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i];
			String where = page + ":" + (i + 1) + ": ";
			if (line.stripLeading().startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			if (!fenced) {
				for (String problem : brokenLinks(page, markdown, line)) {
					problems.add(where + problem);
				}
			}
			if (HISTORIC.matcher(line).find()) {
				continue;
			}
			for (String path : paths(line)) {
				if (!retiredOnPage.contains(path) && !exists(path)) {
					problems.add(where + "no such path: " + path);
				}
			}
		}
		return problems;
	}

	private List<String> brokenLinks(String page, String markdown, String line) {
		List<String> problems = new ArrayList<>();
		Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
		while (link.find()) {
			String target = link.group(1);
			if (SCHEME.matcher(target).find()) {
				continue;
			}
			int hash = target.indexOf('#');
			String file = (hash < 0) ? target : target.substring(0, hash);
			String fragment = (hash < 0) ? "" : target.substring(hash + 1);
			Path pagePath = this.root.resolve(page);
			Path resolved = file.isEmpty() ? pagePath : pagePath.getParent().resolve(file).normalize();
			if (!file.isEmpty() && !Files.exists(resolved)) {
				problems.add("link to a missing file: " + target);
			}
			else if (!fragment.isEmpty() && resolved.toString().endsWith(".md")) {
				Set<String> headings = file.isEmpty() ? anchorsOf(markdown)
						: this.anchors.computeIfAbsent(resolved, (p) -> anchorsOf(read(p)));
				if (!headings.contains(fragment)) {
					problems.add("link to a missing heading: " + target);
				}
			}
		}
		return problems;
	}

	/** The repository paths a line names, patterns left out. */
	private List<String> paths(String line) {
		List<String> paths = new ArrayList<>();
		Matcher token = TOKEN.matcher(line);
		while (token.find()) {
			String path = token.group().replaceAll("[.,:;]+$", "");
			int slash = path.indexOf('/');
			boolean pattern = PLACEHOLDER.matcher(path).find()
					|| (token.end() < line.length() && line.charAt(token.end()) == '[');
			if (slash <= 0 || pattern) {
				continue;
			}
			String first = path.substring(0, slash);
			String last = path.substring(path.lastIndexOf('/') + 1);
			boolean className = this.packages.contains(first) && !last.isEmpty()
					&& Character.isUpperCase(last.charAt(0));
			if (this.topLevelDirectories.contains(first) || className) {
				paths.add(path);
			}
		}
		return paths;
	}

	private Set<String> retiredPaths(String[] lines) {
		Set<String> retired = new HashSet<>();
		for (String line : lines) {
			if (HISTORIC.matcher(line).find()) {
				retired.addAll(paths(line));
			}
		}
		return retired;
	}

	private boolean exists(String path) {
		List<String> segments = Arrays.asList(path.split("/+"));
		if (this.topLevelDirectories.contains(segments.get(0))) {
			return matches(this.root, segments, 0);
		}
		return this.sourceRoots.stream().anyMatch((sources) -> matches(sources, segments, 0));
	}

	private static boolean matches(Path dir, List<String> segments, int index) {
		if (index == segments.size()) {
			return true;
		}
		String segment = segments.get(index);
		if (segment.equals("...")) {
			if (matches(dir, segments, index + 1)) {
				return true;
			}
			try (Stream<Path> children = Files.list(dir)) {
				return children.filter(Files::isDirectory).anyMatch((child) -> matches(child, segments, index));
			}
			catch (IOException ex) {
				return false;
			}
		}
		Path next = dir.resolve(segment);
		if (Files.exists(next)) {
			return matches(next, segments, index + 1);
		}
		// A class named without its file's extension:
		// src/test/java/.../cluster/NodeFaults.
		return index == segments.size() - 1 && !segment.contains(".") && Files.exists(dir.resolve(segment + ".java"));
	}

	/** GitHub's anchors of a page's headings: a repeated heading gets -1, -2, ... */
	static Set<String> anchorsOf(String markdown) {
		Set<String> anchors = new TreeSet<>();
		Map<String, Integer> seen = new HashMap<>();
		boolean fenced = false;
		for (String line : markdown.split("\n")) {
			if (line.stripLeading().startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (!fenced && heading.matches()) {
				String slug = slug(heading.group(1));
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
		}
		return anchors;
	}

	private static String slug(String heading) {
		String text = HEADING_LINK.matcher(heading).replaceAll("$1").toLowerCase(Locale.ROOT);
		StringBuilder slug = new StringBuilder();
		text.codePoints().forEach((c) -> {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				slug.appendCodePoint(c);
			}
			else if (c == ' ') {
				slug.append('-');
			}
		});
		return slug.toString();
	}

	/**
	 * The root's directories, but for .git and those .gitignore names (generated ones).
	 */
	private static Set<String> topLevelDirectories(Path root) {
		Set<String> ignored = new HashSet<>(Set.of(".git"));
		Path gitignore = root.resolve(".gitignore");
		if (Files.exists(gitignore)) {
			for (String line : read(gitignore).split("\n")) {
				String entry = line.strip().replaceFirst("^/", "");
				if (entry.matches("[^#*/]+/")) {
					ignored.add(entry.substring(0, entry.length() - 1));
				}
			}
		}
		try (Stream<Path> entries = Files.list(root)) {
			return entries.filter(Files::isDirectory)
				.map((p) -> p.getFileName().toString())
				.filter((name) -> !ignored.contains(name))
				.collect(TreeSet::new, Set::add, Set::addAll);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
