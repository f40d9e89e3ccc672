package io.punctual.api.remote;

import com.codahale.metrics.MetricRegistry;
import io.punctual.handler.JobContext;
import io.punctual.queue.Stores;
import io.punctual.worker.Worker;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.run.StopReason;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One registered remote worker: the {@link Worker} this API process runs for it (the same claim
 * loop, leases, heartbeats, limits, fairness, timeouts and fenced results as {@code punctual
 * worker}, with {@link RemoteHandler}s for the types it declared), the attempts waiting for its
 * next claim, and those it holds. Its claims, heartbeats and completions keep it alive; one that
 * sends nothing for {@code leaseTtl} is {@link #abandon() abandoned}.
 */
final class RemoteSession {
  /** What a registration declared. */
  record Declared(String namespace, List<String> types, int concurrency) {}

  private final String id;
  private final Declared declared;
  private final Clock clock;
  private final Worker worker;
  private final BlockingQueue<RemoteAttempt> waiting = new LinkedBlockingQueue<>();
  private final Map<UUID, RemoteAttempt> held = new ConcurrentHashMap<>();
  private volatile Instant lastSeen;
  private volatile boolean closing;

  /** The API is stopping: claims answer at once, so no long poll holds its shutdown. */
  private volatile boolean draining;

  /** Claims waiting now: a worker in a long poll is alive whatever its lastSeen. */
  private final AtomicInteger polling = new AtomicInteger();

  /** How long a long poll waits at a time before it looks whether the worker is stopping. */
  private static final long POLL_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  RemoteSession(String id, Declared declared, Stores stores, WorkerSettings base) {
    this.id = id;
    this.declared = declared;
    this.clock = stores.clock();
    this.lastSeen = clock.instant();
    JobHandlers handlers = new JobHandlers();
    declared.types().forEach(t -> handlers.register(new RemoteHandler(t, this)));
    this.worker = new Worker(stores, settings(id, declared, base), handlers, new MetricRegistry());
  }

  private static WorkerSettings settings(String id, Declared declared, WorkerSettings base) {
    WorkerSettings s = base;
    s.workerId = id;
    s.namespaces = new ArrayList<>(List.of(declared.namespace()));
    s.concurrency = declared.concurrency();
    s.claimBatchSize = Math.min(s.claimBatchSize, declared.concurrency());
    return s;
  }

  String id() {
    return id;
  }

  Declared declared() {
    return declared;
  }

  Instant lastSeen() {
    return lastSeen;
  }

  /** Whether a claim of this worker is waiting now (its long poll keeps it alive). */
  boolean polling() {
    return polling.get() > 0;
  }

  /**
   * Ends this worker's long polls within a poll slice (250 ms) and answers its later claims at
   * once, with what is waiting or nothing; its attempts and completions go on as before.
   */
  void drain() {
    draining = true;
  }

  void touch() {
    lastSeen = clock.instant();
  }

  void start() {
    worker.start();
  }

  /** A claimed attempt, for the remote worker's next claim; called on the attempt's thread. */
  RemoteAttempt offer(JobContext ctx) {
    RemoteAttempt attempt = new RemoteAttempt(ctx);
    held.put(ctx.jobId(), attempt);
    if (closing) {
      handBack(attempt); // claimed while the worker stops: never handed over, back at once
    } else {
      waiting.add(attempt);
    }
    return attempt;
  }

  /** Hands back an attempt the remote worker never took: PENDING again at once. */
  private void handBack(RemoteAttempt attempt) {
    worker.stopAttempt(attempt.ctx().jobId(), StopReason.SHUTDOWN);
  }

  /** The attempt of {@code ctx} ended here (completed, timed out, cancelled). */
  void release(JobContext ctx) {
    held.computeIfPresent(ctx.jobId(), (k, a) -> a.ctx() == ctx ? null : a);
    waiting.removeIf(a -> a.ctx() == ctx);
  }

  /**
   * Up to {@code max} attempts for the remote worker: those waiting, else the first to come within
   * {@code wait}. A cancelled or timed-out attempt still waiting is skipped.
   */
  List<JobContext> claim(int max, Duration wait) throws InterruptedException {
    touch();
    polling.incrementAndGet();
    try {
      return take(max, wait);
    } finally {
      polling.decrementAndGet();
      touch();
    }
  }

  private List<JobContext> take(int max, Duration wait) throws InterruptedException {
    List<JobContext> taken = new ArrayList<>();
    long deadline = System.nanoTime() + wait.toNanos();
    while (taken.isEmpty() && !closing && !draining) {
      long left = deadline - System.nanoTime();
      RemoteAttempt first =
          waiting.poll(Math.clamp(left, 0, POLL_SLICE_NANOS), TimeUnit.NANOSECONDS);
      if (first == null) {
        if (left <= POLL_SLICE_NANOS) {
          break;
        }
        continue;
      }
      List<RemoteAttempt> more = new ArrayList<>();
      more.add(first);
      waiting.drainTo(more, max - 1);
      for (RemoteAttempt a : more) {
        if (!a.ctx().isCancelled()) {
          taken.add(a.ctx());
        }
      }
    }
    return taken;
  }

  /** The attempt of {@code jobId} this remote worker holds, if it is {@code attempt}. */
  RemoteAttempt held(UUID jobId, int attempt) {
    RemoteAttempt a = held.get(jobId);
    return a != null && a.ctx().attempt() == attempt ? a : null;
  }

  /** How many attempts it holds (running remotely or waiting for its claim). */
  int holding() {
    return held.size();
  }

  /**
   * Leaves its running attempts to the death watch (they are rescued as lost) and ends their
   * handlers' waits without a result: the remote worker stopped answering.
   */
  void abandon() {
    worker.abandon();
    held.values().forEach(RemoteAttempt::abandon);
  }

  /**
   * Stops gracefully: no more claims (a claim waiting ends with nothing); attempts the remote
   * worker never took are handed back at once; those it runs get {@code worker.shutdownGrace} to
   * complete, then are handed back.
   */
  void close() {
    closing = true;
    List<RemoteAttempt> neverTaken = new ArrayList<>();
    waiting.drainTo(neverTaken);
    neverTaken.forEach(this::handBack);
    worker.close();
  }
}
