package io.punctual.api.jobs;

import io.dropwizard.lifecycle.Managed;
import io.punctual.common.job.Priority;
import io.punctual.common.queue.ReadyQueue;
import io.punctual.common.store.JobStore.QueueEntry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis writes of the API, each bounded by a timeout. PostgreSQL is the truth: when Redis is slow
 * or down the request goes on, and the promoter (pending jobs) or the reaper put the queue right.
 */
public final class QueueWriter implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(QueueWriter.class);

  private final ReadyQueue queue;
  private final Duration timeout;
  private final ThreadPoolExecutor executor;

  public QueueWriter(ReadyQueue queue, Duration timeout) {
    this.queue = queue;
    this.timeout = timeout;
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        new ThreadPoolExecutor(
            4,
            4,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(10_000),
            r -> {
              Thread t = new Thread(r, "api-redis-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    executor.allowCoreThreadTimeOut(true);
  }

  /** Enqueues jobs; returns false (and logs) if Redis did not take them in time. */
  public boolean enqueue(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return true;
    }
    return run(() -> queue.enqueue(entries), "enqueue", entries.size(), entries.get(0).id());
  }

  /** Takes a cancelled job out of its queue; returns false (and logs) on failure. */
  public boolean remove(String namespace, Priority priority, UUID id) {
    return run(() -> queue.remove(namespace, priority, id), "remove", 1, id);
  }

  /** Takes jobs out of their queues (e.g. a cancelled workflow's steps); false on failure. */
  public boolean removeAll(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return true;
    }
    return run(() -> queue.removeAll(entries), "remove", entries.size(), entries.get(0).id());
  }

  private boolean run(Runnable write, String what, int count, UUID firstId) {
    try {
      Future<?> done = executor.submit(write);
      done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception e) {
      LOG.warn(
          "redis {} failed, the promoter or reaper will repair it jobs={} firstJob={} error={}",
          what,
          count,
          firstId,
          String.valueOf(e.getCause() == null ? e : e.getCause()));
      return false;
    }
  }

  @Override
  public void stop() throws Exception {
    executor.shutdown();
    executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
