package io.punctual.worker.complete;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What follows a batch's commit (leases released, retries put back into Redis, the ends reported),
 * run on a thread of its own so that the completion writer's next statement overlaps it: the writer
 * is the drain's one serial step, and PostgreSQL's part of it was about two thirds of its time
 * (docs/performance-log.md, the sixteenth machine). At most {@link #CAPACITY} batches wait here; a
 * writer that gets further ahead waits, so nothing piles up. The batches' steps keep their order
 * within a batch; batches share no job, so their order among each other does not matter.
 */
final class AfterCommit implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AfterCommit.class);
  static final int CAPACITY = 4;
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  /** Put in the queue by {@link #close()} after every batch's steps; never run. */
  private static final Runnable STOP = new Stop();

  private final BlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final String workerId;
  private final Thread thread;

  AfterCommit(String workerId) {
    this.workerId = workerId;
    this.thread =
        Thread.ofPlatform().daemon().name("punctual-completions-after").unstarted(this::loop);
  }

  void start() {
    thread.start();
  }

  /** Queues a batch's steps; waits while {@link #CAPACITY} batches are queued. */
  void submit(Runnable steps) throws InterruptedException {
    queue.put(steps);
  }

  private void loop() {
    while (true) {
      Runnable steps;
      try {
        steps = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (steps == STOP) {
        return;
      }
      try {
        steps.run();
      } catch (RuntimeException e) {
        log.error("after-commit steps failed worker={}", workerId, e);
      }
    }
  }

  private static final class Stop implements Runnable {
    @Override
    public void run() {}
  }

  /** Runs what is queued, then stops the thread. */
  @Override
  public void close() {
    if (!thread.isAlive()) {
      return;
    }
    try {
      // Bounded as the join is: a thread stuck on a full queue must not hang the worker's stop.
      if (queue.offer(STOP, CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
        thread.join(CLOSE_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("after-commit steps still busy at close worker={}", workerId);
      thread.interrupt();
    }
  }
}
