package io.punctual.store.namespace;

/**
 * The limits of one namespace; a null limit is no limit. {@code submitsPerSecond} and {@code burst}
 * describe one token bucket (both set or neither): it holds {@code burst} submits and refills
 * {@code submitsPerSecond} a second.
 */
public record Quota(
    Integer submitsPerSecond, Integer burst, Long maxPending, Integer maxPayloadBytes) {
  public static final Quota UNLIMITED = new Quota(null, null, null, null);

  public Quota {
    if ((submitsPerSecond == null) != (burst == null)) {
      throw new IllegalArgumentException("submitsPerSecond and burst are set together");
    }
  }

  public boolean limitsRate() {
    return submitsPerSecond != null;
  }

  public boolean limitsPending() {
    return maxPending != null;
  }

  public boolean limitsPayload() {
    return maxPayloadBytes != null;
  }

  /** Whether any limit is set. */
  public boolean limitsAnything() {
    return limitsRate() || limitsPending() || limitsPayload();
  }
}
