package dev.highload.profiles.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server logs of the running embedded cluster's nodes ({@code <base-dir>/<node>.log},
 * where each postmaster's output goes): what the nodes logged since a mark. For tests
 * that count what the servers did, such as cancellations, which pg_stat_statements does
 * not count.
 */
public final class ServerLogs {

	private final EmbeddedCluster cluster;

	public ServerLogs(EmbeddedCluster cluster) {
		this.cluster = cluster;
	}

	/** Every node's log size now: where {@link #since} starts reading. */
	public Map<String, Long> mark() throws IOException {
		Map<String, Long> sizes = new LinkedHashMap<>();
		for (String node : this.cluster.ports().keySet()) {
			Path log = logFile(node);
			sizes.put(node, Files.exists(log) ? Files.size(log) : 0);
		}
		return sizes;
	}

	/**
	 * The lines each node logged after the mark that contain {@code text}, by node.
	 * @param mark from {@link #mark}
	 * @param text what a line must contain
	 * @return node name to its matching lines, every node of the mark present
	 */
	public Map<String, List<String>> since(Map<String, Long> mark, String text) throws IOException {
		Map<String, List<String>> found = new LinkedHashMap<>();
		for (Map.Entry<String, Long> node : mark.entrySet()) {
			Path log = logFile(node.getKey());
			String appended = "";
			if (Files.exists(log)) {
				try (InputStream in = Files.newInputStream(log)) {
					in.skipNBytes(Math.min(node.getValue(), Files.size(log)));
					// Latin-1 reads any byte; the messages searched for are ASCII.
					appended = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
				}
			}
			found.put(node.getKey(), appended.lines().filter((line) -> line.contains(text)).toList());
		}
		return found;
	}

	private Path logFile(String node) {
		return this.cluster.find(node).logFile();
	}

}
