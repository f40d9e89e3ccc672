package io.punctual.model;

import java.util.Objects;
import java.util.UUID;

/**
 * A job a new job waits for, and on what condition: a stored job ({@link #jobId}) or another job of
 * the same submission ({@link #index} into it). {@code parent} marks the edge to the parent (at
 * most one per job, shown as the job's parent id and run condition); the others are {@code
 * dependsOn}.
 */
public record Upstream(UUID jobId, int index, RunCondition condition, boolean parent) {
  public Upstream {
    Objects.requireNonNull(condition, "condition");
    if ((jobId == null) == (index < 0)) {
      throw new IllegalArgumentException("an upstream is either a stored job or a batch index");
    }
  }

  /** A stored job, by id. */
  public static Upstream stored(UUID jobId, RunCondition condition) {
    return new Upstream(jobId, -1, condition, false);
  }

  /** Job {@code index} of the same submission. */
  public static Upstream inBatch(int index, RunCondition condition) {
    return new Upstream(null, index, condition, false);
  }

  /** This edge, as the edge to the job's parent. */
  public Upstream asParent() {
    return new Upstream(jobId, index, condition, true);
  }

  public boolean inBatch() {
    return jobId == null;
  }
}
