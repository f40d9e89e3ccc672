package io.punctual.client;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * A namespace's limits, each null for no limit: submits per second and their {@code burst} (which
 * needs {@code submitsPerSecond} and defaults to it), jobs PENDING at once, payload bytes per job.
 */
public record NamespaceQuota(
    Integer submitsPerSecond, Integer burst, Long maxPending, Integer maxPayloadBytes) {
  /** No limit at all. */
  public static final NamespaceQuota UNLIMITED = new NamespaceQuota(null, null, null, null);

  /** Whether no limit is set. */
  @JsonIgnore
  public boolean isUnlimited() {
    return equals(UNLIMITED);
  }
}
