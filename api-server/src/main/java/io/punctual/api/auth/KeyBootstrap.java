package io.punctual.api.auth;

import io.punctual.api.config.AuthSettings;
import java.util.List;
import java.util.Optional;

/**
 * The first admin key. {@code auth.bootstrapKey} ({@code PUNCTUAL_BOOTSTRAP_KEY}) is made an admin
 * key at every start (nothing happens when it exists already, so restarts and several API servers
 * are fine); an API with authentication on and no admin key refuses to start.
 */
public final class KeyBootstrap {
  /** The name the bootstrap key is stored under. */
  public static final String BOOTSTRAP_NAME = "bootstrap";

  private KeyBootstrap() {}

  /** Stores the configured bootstrap key unless it exists; nothing without one. */
  public static void apply(AuthSettings auth, ApiKeys keys) {
    String secret = auth.bootstrapKeyOrNull();
    if (secret != null) {
      keys.create(adminKey(BOOTSTRAP_NAME), secret);
    }
  }

  /**
   * Refuses to go on without an admin key.
   *
   * @throws IllegalStateException when no admin key could sign in: the API would be unusable
   */
  public static void requireAnAdmin(ApiKeys keys) {
    if (keys.activeAdmins() == 0) {
      throw new IllegalStateException(
          "no admin API key exists: set PUNCTUAL_BOOTSTRAP_KEY (auth.bootstrapKey, 32 characters"
              + " or more) to make one, or switch authentication off with auth.enabled: false"
              + " (only on a private network)");
    }
  }

  /** Whether {@code secret} is an admin key that can sign in now. */
  public static boolean isActiveAdmin(ApiKeys keys, String secret, java.time.Instant now) {
    Optional<ApiKey> match = keys.bySecret(KeySecrets.prefix(secret), KeySecrets.sha256(secret));
    return match.isPresent() && match.get().role() == Role.ADMIN && !match.get().expiredAt(now);
  }

  /** A new admin key of every namespace, never expiring. */
  public static ApiKeys.NewKey adminKey(String name) {
    return new ApiKeys.NewKey(name, Role.ADMIN, List.of(Principal.ALL_NAMESPACES), null);
  }
}
