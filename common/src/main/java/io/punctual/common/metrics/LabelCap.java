package io.punctual.common.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bounds the values one metric label takes: the first {@code max} distinct values keep their own
 * label, every later one is reported as {@value #OTHER}. Keeps a scrape small however many job
 * types or namespaces clients invent.
 */
public final class LabelCap {
  public static final String OTHER = "other";

  private final int max;
  private final Set<String> kept = ConcurrentHashMap.newKeySet();

  public LabelCap(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must be >= 0, was " + max);
    }
    this.max = max;
  }

  /** {@code value} itself while it is one of the first {@code max} seen, else {@value #OTHER}. */
  public String label(String value) {
    if (value == null) {
      return OTHER;
    }
    if (kept.contains(value)) {
      return value;
    }
    synchronized (kept) {
      if (kept.size() < max) {
        kept.add(value);
        return value;
      }
    }
    return OTHER;
  }
}
