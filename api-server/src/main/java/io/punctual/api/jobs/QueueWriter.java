package io.punctual.api.jobs;

import io.punctual.model.QueueEntry;
import io.punctual.queue.CancelNotice;
import io.punctual.queue.ReadyQueue;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis writes of the API, each bounded by a timeout. PostgreSQL is the truth: when Redis is slow
 * or down the request goes on, and the promoter (pending jobs) or the reaper put the queue right.
 *
 * <p>The request's own thread sends the commands and waits for Redis's answer at most {@code
 * timeout}: no thread of the API's in between, so an enqueue costs one hand-over (Lettuce's event
 * loop completing the answer) instead of three.
 */
public final class QueueWriter {
  private static final Logger LOG = LoggerFactory.getLogger(QueueWriter.class);

  private final ReadyQueue queue;
  private final Duration timeout;

  public QueueWriter(ReadyQueue queue, Duration timeout) {
    this.queue = queue;
    this.timeout = timeout;
  }

  /** Enqueues jobs; returns false (and logs) if Redis did not take them in time. */
  public boolean enqueue(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return true;
    }
    return run(() -> queue.enqueueAsync(entries), "enqueue", entries.size(), entries.get(0).id());
  }

  /**
   * Tells the workers running these cancelled attempts to interrupt them now; false (and logs) on
   * failure, when they learn it at their next heartbeat instead.
   */
  public boolean announceCancels(List<CancelNotice> notices) {
    if (notices.isEmpty()) {
      return true;
    }
    return run(
        () -> queue.announceCancelsAsync(notices),
        "announce cancel",
        notices.size(),
        notices.get(0).jobId());
  }

  /** Takes jobs out of their queues (e.g. a cancelled workflow's steps); false on failure. */
  public boolean removeAll(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return true;
    }
    return run(() -> queue.removeAllAsync(entries), "remove", entries.size(), entries.get(0).id());
  }

  private boolean run(
      Supplier<CompletableFuture<Void>> write, String what, int count, UUID firstId) {
    CompletableFuture<Void> done = null;
    try {
      done = write.get();
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      if (done != null) {
        done.cancel(false); // the answer, if it ever comes, is no longer awaited
      }
      LOG.warn(
          "redis {} failed, the promoter or reaper will repair it jobs={} firstJob={} error={}",
          what,
          count,
          firstId,
          String.valueOf(
              e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e));
      return false;
    }
  }
}
