package io.punctual.client;

import java.time.Instant;

/**
 * A namespace as the API returns it. {@code weight} is its share of the workers' free slots while
 * other namespaces have due jobs too (1 to 1000, 1 unless set). {@code usage} is present only from
 * {@link PunctualClient#getNamespace} (null in lists and in the answers to changes).
 */
public record NamespaceView(
    String name,
    boolean active,
    Instant createdAt,
    Instant deactivatedAt,
    NamespaceQuota quota,
    int weight,
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
