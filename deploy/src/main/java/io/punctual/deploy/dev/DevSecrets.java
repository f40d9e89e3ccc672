package io.punctual.deploy.dev;

import io.punctual.outbound.signing.SigningSecret;
import io.punctual.store.secret.SigningSecrets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The secrets of {@code punctual dev}, kept in its data directory (mode 600): the encryption key
 * its signing secrets are sealed under ({@value #KEY_FILE}, made on the first start), and a signing
 * secret of the {@code default} namespace ({@value #DEFAULT_SIGNING_SECRET_FILE}), so that a
 * receiver on the developer's machine can verify callbacks and notices.
 */
public final class DevSecrets {
  public static final String KEY_FILE = "secrets.key";
  public static final String DEFAULT_SIGNING_SECRET_FILE = "default.signing-secret";

  private static final SecureRandom RANDOM = new SecureRandom();

  private DevSecrets() {}

  /** The base64 encryption key in {@code dataDir}, made and written there the first time. */
  public static String encryptionKey(Path dataDir) {
    Path file = dataDir.resolve(KEY_FILE);
    String existing = DevFiles.read(file);
    if (existing != null && !existing.isEmpty()) {
      return existing;
    }
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    String text = Base64.getEncoder().encodeToString(key);
    DevFiles.writePrivate(file, text);
    return text;
  }

  /**
   * The file holding a signing secret of {@code default} that signs now: the one written there
   * before while it is still one of the namespace's secrets, else a new one made and written.
   */
  public static Path defaultSigningSecret(SigningSecrets secrets, Path dataDir) {
    Path file = dataDir.resolve(DEFAULT_SIGNING_SECRET_FILE);
    Optional<SigningSecret> written =
        Optional.ofNullable(DevFiles.read(file)).flatMap(SigningSecret::parse);
    boolean signs =
        written.isPresent()
            && secrets.signingKeysOf("default").stream()
                .anyMatch(k -> Arrays.equals(k, written.get().key()));
    if (!signs) {
      SigningSecrets.Created made =
          secrets
              .create("default")
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "namespace default holds "
                              + SigningSecrets.MAX_PER_NAMESPACE
                              + " signing secrets and none is in "
                              + file
                              + ": delete one (DELETE /api/v1/namespaces/default/signing-secrets/{id})"));
      DevFiles.writePrivate(file, SigningSecret.ofKey(made.key()).text());
    }
    return file;
  }
}
