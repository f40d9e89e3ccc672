package io.punctual.deploy.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** The small secret files {@code punctual dev} keeps in its data directory (mode 600). */
final class DevFiles {
  private DevFiles() {}

  /** The file's text without surrounding blanks; null when it is missing or unreadable. */
  static String read(Path file) {
    try {
      return Files.isRegularFile(file)
          ? Files.readString(file, StandardCharsets.UTF_8).strip()
          : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Writes {@code text} to {@code file}, readable by its owner only, replacing it at once. */
  static void writePrivate(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(temp);
      Files.createFile(
          temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(temp, text + "\n", StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
