package io.punctual.client;

import java.time.Instant;

/**
 * A namespace as the API returns it. {@code usage} is present only from {@link
 * PunctualClient#getNamespace} (null in lists and in the answers to changes).
 */
public record NamespaceView(
    String name,
    boolean active,
    Instant createdAt,
    Instant deactivatedAt,
    NamespaceQuota quota,
    Usage usage) {

  public NamespaceView {
    quota = quota == null ? NamespaceQuota.UNLIMITED : quota;
  }

  /**
   * What the namespace uses: its PENDING jobs, counted up to {@code pendingCountedUpTo} (equal to
   * it means at least that many).
   */
  public record Usage(long pending, long pendingCountedUpTo) {}
}
