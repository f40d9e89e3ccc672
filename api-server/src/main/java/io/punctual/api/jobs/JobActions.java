package io.punctual.api.jobs;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.CancelNotice;
import io.punctual.store.JobQueries;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.CancelResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * An operator's actions on jobs, each with its Redis side: a retry (the RERUN transitions) enqueues
 * what it moved like a submit; a cancel takes a pending job out of Redis and enqueues the jobs its
 * end released. Used by the single-job routes and by bulk actions.
 */
public final class JobActions {
  private final JobQueries store;
  private final JobTransitions transitions;
  private final Released released;
  private final QueueWriter queue;

  /** Puts jobs made PENDING in Redis when due within the horizon ({@link JobSubmitter}). */
  @FunctionalInterface
  public interface Released {
    void enqueueReleased(List<QueueEntry> entries);
  }

  public JobActions(
      JobQueries store, JobTransitions transitions, Released released, QueueWriter queue) {
    this.store = store;
    this.transitions = transitions;
    this.released = released;
    this.queue = queue;
  }

  /** What a retry of one job came to. */
  public sealed interface RetryResult {
    /** Now PENDING again (and in Redis when due within the horizon). */
    record Retried(Job job) implements RetryResult {}

    /** Not FAILED, CANCELLED or SKIPPED (still running or waiting, or SUCCEEDED). */
    record NotRetryable(Job job) implements RetryResult {}

    record NotFound() implements RetryResult {}
  }

  /** Retries job {@code id} of {@code namespace} (see {@link JobTransitions#rerun}). */
  public RetryResult retry(String namespace, UUID id) {
    List<Job> moved = retryAll(namespace, List.of(id));
    if (!moved.isEmpty()) {
      return new RetryResult.Retried(moved.get(0));
    }
    Optional<Job> job = store.find(namespace, id);
    return job.<RetryResult>map(RetryResult.NotRetryable::new).orElseGet(RetryResult.NotFound::new);
  }

  /**
   * Retries those of {@code ids} (jobs of {@code namespace}) that are FAILED, CANCELLED or SKIPPED
   * now; returns them. The others are left alone.
   */
  public List<Job> retryAll(String namespace, Collection<UUID> ids) {
    List<Job> moved = transitions.rerun(namespace, ids);
    afterRetry(moved);
    return moved;
  }

  /** The Redis side of a committed retry of {@code moved} (done in a caller's transaction). */
  public void afterRetry(List<Job> moved) {
    released.enqueueReleased(moved.stream().map(QueueEntry::of).toList());
  }

  /** Cancels job {@code id} of {@code namespace}, with its Redis side (see JobsResource). */
  public CancelResult cancel(String namespace, UUID id) {
    CancelResult result = transitions.cancel(namespace, id);
    if (result instanceof CancelResult.Cancelled c) {
      afterCancel(c);
    }
    return result;
  }

  /** The Redis side of a committed cancel (done in a caller's transaction). */
  public void afterCancel(CancelResult.Cancelled c) {
    afterCancels(List.of(c));
  }

  /**
   * The Redis side of committed cancels, for a batch at once: one removal per queue, one notice
   * message, one enqueue of the jobs they released.
   */
  public void afterCancels(List<CancelResult.Cancelled> cancels) {
    List<QueueEntry> dequeued = new ArrayList<>();
    List<CancelNotice> notices = new ArrayList<>();
    List<QueueEntry> freed = new ArrayList<>();
    for (CancelResult.Cancelled c : cancels) {
      Job job = c.job();
      if (c.previous() == JobState.PENDING) {
        dequeued.add(QueueEntry.of(job));
        // A worker may hold its next attempt with the claim not written yet (its row still
        // PENDING, worker.claimWriteAfter): the notice stops that attempt now, not when its write
        // is refused.
        notices.add(new CancelNotice(job.id(), job.attempt() + 1, job.updatedAt()));
      } else if (c.previous() == JobState.RUNNING) {
        Instant at = job.finishedAt() == null ? job.updatedAt() : job.finishedAt();
        notices.add(new CancelNotice(job.id(), job.attempt(), at));
      }
      freed.addAll(c.released());
    }
    queue.removeAll(dequeued);
    queue.announceCancels(notices);
    released.enqueueReleased(freed);
  }
}
