package io.punctual.store;

import io.punctual.model.QueueEntry;
import java.util.UUID;

/**
 * An attempt a worker gives back ({@link JobTransitions#handBack}, transition HAND_BACK): {@code
 * durationMs} how long its handler ran (null: since the job row's start), {@code error} what its
 * execution row says.
 */
public record HandBack(UUID jobId, int attempt, Long durationMs, String error) {

  /** A job made PENDING again: where it goes in Redis, and the attempt it gave back. */
  public record Moved(QueueEntry entry, int attempt) {}
}
