package dev.highload.profiles.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs PostgreSQL's commands without root: initdb and postgres refuse to start as root,
 * and sessions on build machines often are root.
 */
final class Privileges {

	/**
	 * Inside the namespace the server runs as this id; outside, the files stay root's.
	 */
	private static final String MAPPED_ID = "1000";

	private Privileges() {
	}

	static boolean isRoot() {
		try {
			return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
		}
		catch (IOException | UnsupportedOperationException ex) {
			return false;
		}
	}

	/**
	 * The command to run, wrapped in {@code unshare --user} when this JVM is root.
	 * @param command a PostgreSQL command line
	 * @return the command line to start
	 */
	static List<String> unprivileged(List<String> command) {
		if (!isRoot()) {
			return command;
		}
		List<String> wrapped = new ArrayList<>(
				List.of("unshare", "--user", "--map-user=" + MAPPED_ID, "--map-group=" + MAPPED_ID));
		wrapped.addAll(command);
		return wrapped;
	}

}
