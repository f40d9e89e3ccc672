package io.punctual.store.namespace;

import java.time.Duration;

/**
 * The limits of one namespace; a null limit is no limit. {@code submitsPerSecond} and {@code burst}
 * describe one token bucket (both set or neither): it holds {@code burst} submits and refills
 * {@code submitsPerSecond} a second. {@code maxPending}, {@code maxPayloadBytes} and {@code
 * maxTimeout} are checked when jobs are submitted; {@code maxRunning} (attempts running at once,
 * fleet-wide) when they are claimed, and {@code maxTimeout} again when they start.
 */
public record Quota(
    Integer submitsPerSecond,
    Integer burst,
    Long maxPending,
    Integer maxPayloadBytes,
    Integer maxRunning,
    Duration maxTimeout) {
  public static final Quota UNLIMITED = new Quota(null, null, null, null, null, null);

  public Quota {
    if ((submitsPerSecond == null) != (burst == null)) {
      throw new IllegalArgumentException("submitsPerSecond and burst are set together");
    }
  }

  /** A quota on submits only (rate, pending jobs, payload size). */
  public Quota(Integer submitsPerSecond, Integer burst, Long maxPending, Integer maxPayloadBytes) {
    this(submitsPerSecond, burst, maxPending, maxPayloadBytes, null, null);
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

  public boolean limitsTimeout() {
    return maxTimeout != null;
  }

  /** Whether anything is checked when jobs are submitted. */
  public boolean limitsAnything() {
    return limitsRate() || limitsPending() || limitsPayload() || limitsTimeout();
  }
}
