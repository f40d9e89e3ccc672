package io.punctual.deploy.dev;

import io.punctual.api.auth.ApiKeys;
import io.punctual.api.auth.KeyBootstrap;
import io.punctual.api.auth.KeySecrets;
import java.nio.file.Path;
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
    String existing = DevFiles.read(file);
    if (existing != null && KeyBootstrap.isActiveAdmin(keys, existing, now)) {
      return existing;
    }
    String secret = KeySecrets.generate();
    keys.create(KeyBootstrap.adminKey(KEY_NAME), secret);
    DevFiles.writePrivate(file, secret);
    return secret;
  }
}
