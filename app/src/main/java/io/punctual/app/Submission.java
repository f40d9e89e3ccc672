package io.punctual.app;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.store.JobSubmissions.Submitted;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs written in the caller's transaction, not yet in Redis: call {@link #enqueue()} once that
 * transaction has committed, and the jobs due soon are claimable at once. Without it (the
 * application died after its commit, or never calls it) they still run: a reaper's reconciler finds
 * a PENDING job missing from Redis once it has been due {@code reaper.reconcileAfter}, and queues
 * it within a pass ({@code reaper.interval}) more; jobs due later than the promoter's reach ({@code
 * queue.horizon} less {@code queue.promoterSlack}) the promoter queues when their time comes, like
 * any. After a rollback, do not call it: there is nothing to enqueue.
 */
public final class Submission {
  private static final Logger log = LoggerFactory.getLogger(Submission.class);

  private final List<Submitted> submitted;
  private final UUID workflowId;
  private final ReadyQueue queue;
  private final Clock clock;
  private final Duration horizon;
  private final Duration timeout;
  private final AtomicBoolean enqueued = new AtomicBoolean();

  Submission(
      List<Submitted> submitted,
      UUID workflowId,
      ReadyQueue queue,
      Clock clock,
      Duration horizon,
      Duration timeout) {
    this.submitted = List.copyOf(submitted);
    this.workflowId = workflowId;
    this.queue = queue;
    this.clock = clock;
    this.horizon = horizon;
    this.timeout = timeout;
  }

  /** The jobs as written, in request order (an idempotent repeat: the job stored before). */
  public List<Job> jobs() {
    return submitted.stream().map(Submitted::job).toList();
  }

  /** The jobs' ids, in request order. */
  public List<UUID> ids() {
    return submitted.stream().map(s -> s.job().id()).toList();
  }

  /** The workflow's id, for a {@code submitWorkflow}; empty for jobs. */
  public Optional<UUID> workflowId() {
    return Optional.ofNullable(workflowId);
  }

  /** The id of the first (or only) job. */
  public UUID id() {
    return submitted.get(0).job().id();
  }

  /**
   * Whether request {@code index} created its job; false when its idempotency key named a job
   * stored before with the same request (that job is returned, as the API returns it).
   */
  public boolean created(int index) {
    return submitted.get(index).created();
  }

  /**
   * Puts into Redis the jobs this submission created that are PENDING and due within the queue's
   * horizon (later ones are the promoter's), waiting at most the enqueue timeout. Call it after the
   * commit, once; later calls do nothing. Returns false when Redis did not take them in time
   * (logged): the reaper's reconciler queues them as if this were never called.
   */
  public boolean enqueue() {
    if (!enqueued.compareAndSet(false, true)) {
      return true;
    }
    Instant until = clock.instant().plus(horizon);
    List<QueueEntry> entries = new ArrayList<>();
    for (Submitted s : submitted) {
      Job job = s.job();
      if (s.created() && job.status() == JobState.PENDING && !job.runAt().isAfter(until)) {
        entries.add(QueueEntry.of(job));
      }
    }
    if (entries.isEmpty()) {
      return true;
    }
    Future<Void> done = queue.enqueueAsync(entries);
    try {
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException e) {
      done.cancel(false);
      log.warn(
          "redis enqueue failed, the reaper's reconciler will queue the jobs jobs={} firstJob={}"
              + " error={}",
          entries.size(),
          entries.get(0).id(),
          String.valueOf(
              e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e));
      return false;
    }
  }
}
