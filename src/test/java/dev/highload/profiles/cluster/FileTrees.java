package dev.highload.profiles.cluster;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/** Copying and deleting directory trees. */
final class FileTrees {

	private FileTrees() {
	}

	static void delete(Path root) throws IOException {
		if (!Files.exists(root)) {
			return;
		}
		Files.walkFileTree(root, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
				Files.delete(file);
				return FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
				Files.delete(dir);
				return FileVisitResult.CONTINUE;
			}

		});
	}

	/**
	 * Copies a tree, keeping permissions.
	 * @param source the tree to copy
	 * @param target where to copy it; must not exist
	 * @param skip relative paths to leave out (a skipped directory is created empty)
	 */
	static void copy(Path source, Path target, Predicate<Path> skip) throws IOException {
		Files.walkFileTree(source, new SimpleFileVisitor<>() {

			@Override
			public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
				Path copy = target.resolve(source.relativize(dir));
				Files.copy(dir, copy, StandardCopyOption.COPY_ATTRIBUTES);
				return skip.test(source.relativize(dir)) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
			}

			@Override
			public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
				Path relative = source.relativize(file);
				if (!skip.test(relative)) {
					Files.copy(file, target.resolve(relative), StandardCopyOption.COPY_ATTRIBUTES);
				}
				return FileVisitResult.CONTINUE;
			}

		});
	}

}
