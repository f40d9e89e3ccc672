package io.punctual.model;

import java.time.Instant;
import java.util.UUID;

/** Where a pending job goes in Redis: its id, namespace, priority and when it is due. */
public record QueueEntry(UUID id, String namespace, Priority priority, Instant runAt) {

  /** {@code job}'s entry, due at its {@code runAt}. */
  public static QueueEntry of(Job job) {
    return new QueueEntry(job.id(), job.namespace(), job.priority(), job.runAt());
  }
}
