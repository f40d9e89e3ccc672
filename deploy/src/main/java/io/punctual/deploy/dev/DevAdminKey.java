package io.punctual.deploy.dev;

import io.punctual.api.auth.ApiKeys;
import io.punctual.api.auth.KeyBootstrap;
import io.punctual.api.auth.KeySecrets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;

/**
 * The admin key of {@code punctual dev}: made on its first start, written to {@code
 * <dataDir>/admin.key} (mode 600) and shown in the banner; later starts read it back. When the file
 * is gone or its key no longer works (revoked, or the data was wiped), a new key replaces it.
 */
public final class DevAdminKey {
  public static final String FILE_NAME = "admin.key";
  static final String KEY_NAME = "dev admin";

  private DevAdminKey() {}

  /** The admin key in {@code file}, made (and written there) when it has none that works. */
  public static String ensure(ApiKeys keys, Path file, Instant now) {
    String existing = read(file);
    if (existing != null && KeyBootstrap.isActiveAdmin(keys, existing, now)) {
      return existing;
    }
    String secret = KeySecrets.generate();
    keys.create(KeyBootstrap.adminKey(KEY_NAME), secret);
    write(file, secret);
    return secret;
  }

  private static String read(Path file) {
    try {
      return Files.isRegularFile(file)
          ? Files.readString(file, StandardCharsets.UTF_8).strip()
          : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static void write(Path file, String secret) {
    try {
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling(FILE_NAME + ".tmp");
      Files.deleteIfExists(temp);
      Files.createFile(
          temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(temp, secret + "\n", StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the dev admin key to " + file, e);
    }
  }
}
