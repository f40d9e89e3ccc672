package io.punctual.store.namespace;

import java.time.Instant;

/**
 * A row of {@code namespaces}. A namespace without a row is active and unlimited ({@link
 * #implicit}).
 *
 * @param quotaVersion grows by one on every change of {@code quota}
 * @param weight the namespace's share of the workers' free slots while several namespaces have due
 *     jobs ({@value #MIN_WEIGHT} to {@value #MAX_WEIGHT})
 * @param egress what its callbacks may reach besides the public internet, and whether their answers
 *     are kept
 */
public record Namespace(
    String name,
    boolean active,
    Instant createdAt,
    Instant deactivatedAt,
    Quota quota,
    long quotaVersion,
    int weight,
    Egress egress) {
  public static final int MIN_WEIGHT = 1;
  public static final int MAX_WEIGHT = 1000;
  public static final int DEFAULT_WEIGHT = 1;

  /** What a namespace without a row amounts to: active, no limits, weight 1, no egress grant. */
  public static Namespace implicit(String name) {
    return new Namespace(name, true, null, null, Quota.UNLIMITED, 0, DEFAULT_WEIGHT, Egress.NONE);
  }
}
