package io.punctual.app;

import java.util.Map;

/**
 * What a health check of an embedded piece found: whether PostgreSQL and Redis answered, and
 * whether the worker's claim loop runs (null where there is no worker). {@code problems} names each
 * failed check with its error.
 */
public record PunctualHealth(
    boolean postgres, boolean redis, Boolean claimLoop, Map<String, String> problems) {

  public PunctualHealth {
    problems = Map.copyOf(problems);
  }

  /** Every check passed. */
  public boolean up() {
    return postgres && redis && (claimLoop == null || claimLoop);
  }
}
