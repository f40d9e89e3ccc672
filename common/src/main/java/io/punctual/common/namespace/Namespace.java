package io.punctual.common.namespace;

import java.time.Instant;

/**
 * A row of {@code namespaces}. A namespace without a row is active and unlimited ({@link
 * #implicit}).
 *
 * @param quotaVersion grows by one on every change of {@code quota}
 */
public record Namespace(
    String name,
    boolean active,
    Instant createdAt,
    Instant deactivatedAt,
    Quota quota,
    long quotaVersion) {

  /** What a namespace without a row amounts to: active, no limits. */
  public static Namespace implicit(String name) {
    return new Namespace(name, true, null, null, Quota.UNLIMITED, 0);
  }
}
