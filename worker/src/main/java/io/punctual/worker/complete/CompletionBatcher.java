package io.punctual.worker.complete;

import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.store.HandBack;
import io.punctual.store.JobTransitions;
import io.punctual.worker.claim.OwnLeases;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.claim.UnwrittenLeases;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records finished attempts in batches: one {@code JobTransitions.finish} per batch (fenced by
 * attempt), then the batch's leases are released in one go, then the retries due within the horizon
 * go back into Redis (in that order: a retry popped at once, even by this worker, must find its
 * lease free). What follows a batch's commit runs on {@link AfterCommit}'s thread while the next
 * batch is written. A batch is written when it reaches {@code completionBatchSize} or {@code
 * completionFlushInterval} after its first attempt ended. Store errors are retried with a backoff;
 * until an attempt's result is written or refused it is in {@link #pendingResults()}, whose leases
 * the worker keeps renewing (a PostgreSQL outage alone must not get a finished attempt rescued).
 * Every completion the attempt fence refuses is counted ({@code fenceRefused}). Follow-up jobs the
 * store refuses never hold a batch up: the store records the attempt that spawned them as failed
 * and the rest of the batch as usual (see {@code JobTransitions.finish}). Attempts handed back at
 * the end of the shutdown grace (execution status HANDED_BACK) go through {@code
 * JobTransitions.handBack} in the same flush, and back into Redis at once.
 */
public final class CompletionBatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CompletionBatcher.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  private static final int TRIES_WHEN_CLOSING = 5;

  /** How often a batch being gathered looks for a full batch's worth of attempts. */
  private static final long GATHER_STEP_NANOS = TimeUnit.MICROSECONDS.toNanos(250);

  /**
   * Put in the queue by {@link #close()} to wake the writer at once, rather than at the end of its
   * idle wait; never written (no real attempt equals it: each has a job).
   */
  private static final FinishedAttempt WAKE = new FinishedAttempt(null, null, null);

  private final CompletionStores stores;
  private final Clock clock;
  private final String workerId;
  private final int batchSize;
  private final long flushNanos;
  private final LinkedBlockingQueue<FinishedAttempt> queue = new LinkedBlockingQueue<>();
  private final PendingResults pending = new PendingResults();
  private final UnwrittenClaims unwritten;
  private final UnwrittenLeases unwrittenLeases;
  private final OwnLeases leases;
  private final Written written;
  private final Thread thread;
  private final AfterCommit after;
  private final EndReports reports;
  private volatile boolean closing;

  public CompletionBatcher(
      Clock clock, CompletionStores stores, WorkerSettings settings, WorkerMetrics metrics) {
    this(clock, stores, settings, metrics, new UnwrittenClaims());
  }

  /**
   * {@code unwritten}: the claims the worker holds unwritten; an attempt among them ends with its
   * claim written in the same step (see {@code JobTransitions.finish}).
   */
  public CompletionBatcher(
      Clock clock,
      CompletionStores stores,
      WorkerSettings settings,
      WorkerMetrics metrics,
      UnwrittenClaims unwritten) {
    this(
        clock,
        stores,
        settings,
        metrics,
        unwritten,
        OwnLeases.of(stores.redlock(), settings.workerId));
  }

  /**
   * {@code leases}: the worker's own leases, which a written batch's release leaves to a newer
   * attempt of the same job held here.
   */
  public CompletionBatcher(
      Clock clock,
      CompletionStores stores,
      WorkerSettings settings,
      WorkerMetrics metrics,
      UnwrittenClaims unwritten,
      OwnLeases leases) {
    this.unwritten = unwritten;
    this.leases = leases;
    this.unwrittenLeases =
        new UnwrittenLeases(unwritten, stores.redlock(), settings.workerId, settings.leaseTtl);
    this.stores = stores;
    this.clock = clock;
    this.workerId = settings.workerId;
    this.written = new Written(stores.readBack(), settings.workerId);
    this.batchSize = settings.completionBatchSize;
    this.flushNanos = settings.completionFlushInterval.toNanos();
    this.thread = Thread.ofPlatform().daemon().name("punctual-completions").unstarted(this::loop);
    this.after = new AfterCommit(settings.workerId);
    this.reports = new EndReports(metrics, settings.workerId);
  }

  public void start() {
    after.start();
    thread.start();
  }

  /**
   * Queues a finished attempt for the next batch. Runs on the job's thread before its handler slot
   * is free: a handler that asked for a Retry-After rests its whole key first (if its limit says
   * so), so that this worker's next claim already sees the key resting.
   */
  public void add(FinishedAttempt attempt) {
    if (attempt.outcome() instanceof Outcome.Failed failed && failed.retryAfter() != null) {
      stores.limits().retryAfter(attempt.job(), failed.retryAfter());
    }
    unwritten.ended(attempt.job().id(), attempt.job().attempt());
    pending.add(attempt);
    queue.add(attempt);
  }

  /** Attempts waiting to be written. */
  public int pending() {
    return queue.size();
  }

  /** The attempts whose result is not written (or refused) yet, queued or being retried. */
  public PendingResults pendingResults() {
    return pending;
  }

  private void loop() {
    while (!closing || !queue.isEmpty()) {
      try {
        List<FinishedAttempt> batch = nextBatch();
        if (!batch.isEmpty()) {
          flushWithRetries(batch);
        }
      } catch (InterruptedException e) {
        if (closing) {
          continue;
        }
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("completion loop error worker={}", workerId, e);
      }
    }
  }

  /** Waits for a first attempt, then collects more until the batch is full or old enough. */
  private List<FinishedAttempt> nextBatch() throws InterruptedException {
    FinishedAttempt first = queue.poll(100, TimeUnit.MILLISECONDS);
    if (first == null || WAKE.equals(first)) {
      return List.of();
    }
    List<FinishedAttempt> batch = new ArrayList<>();
    batch.add(first);
    long deadline = System.nanoTime() + flushNanos;
    queue.drainTo(batch, batchSize - batch.size());
    // The rest of the window is slept through in steps, not waited for attempt by attempt: the
    // attempts of a claim end in a burst, and a wait on the queue woke this thread (a futex wake
    // and a context switch) once for nearly each of them.
    while (batch.size() < batchSize) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || closing) {
        break; // closing: what is queued is written now, in batches as full as they come
      }
      LockSupport.parkNanos(Math.min(left, GATHER_STEP_NANOS));
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      queue.drainTo(batch, batchSize - batch.size());
    }
    batch.removeIf(WAKE::equals);
    return batch;
  }

  /**
   * Writes {@code batch}, trying again after a failure, and hands what follows its commit to {@link
   * #after}, so that the next batch's statement overlaps it.
   */
  private void flushWithRetries(List<FinishedAttempt> batch) throws InterruptedException {
    Committed committed = writeWithRetries(batch);
    if (committed == null) {
      return;
    }
    try {
      after.submit(() -> afterCommit(batch, committed));
    } catch (InterruptedException e) {
      afterCommit(batch, committed); // stopped while waiting: done here rather than lost
      throw e;
    }
  }

  /** {@link #write}, tried again after a failure; null when given up on while closing. */
  private Committed writeWithRetries(List<FinishedAttempt> batch) throws InterruptedException {
    Duration backoff = Duration.ofMillis(100);
    for (int tries = 1; ; tries++) {
      try {
        // A try after a failure may follow a commit whose outcome was unknown: read it back.
        return write(batch, tries > 1);
      } catch (RuntimeException e) {
        if (closing && tries >= TRIES_WHEN_CLOSING) {
          log.error(
              "giving up recording {} finished attempts worker={} (the reaper will rescue them)",
              batch.size(),
              workerId,
              e);
          pending.removeAll(batch);
          unwritten.finished(attemptsOf(batch));
          return null;
        }
        log.warn(
            "recording {} finished attempts failed, retrying in {} worker={}: {}",
            batch.size(),
            backoff,
            workerId,
            e.toString());
        Thread.sleep(backoff.toMillis());
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  /**
   * Writes one batch now: finish, release leases, re-enqueue near retries. Throws only when
   * PostgreSQL refused the batch as a whole (nothing was recorded then).
   */
  public Set<UUID> flush(List<FinishedAttempt> batch) {
    return flush(batch, false);
  }

  /**
   * {@link #flush(List)}; {@code again}: the batch is written again after a failure, which may have
   * been a commit whose outcome was unknown (the connection lost during it). The attempts the fence
   * refuses this time are then read back ({@link Written}): those the earlier try did write count
   * as written, not as refused, and go on as if this try had written them.
   */
  Set<UUID> flush(List<FinishedAttempt> batch, boolean again) {
    Committed committed = write(batch, again);
    afterCommit(batch, committed);
    return committed.accepted();
  }

  /**
   * A batch's result in PostgreSQL: the ids written ({@code accepted}) and what the finish said.
   */
  private record Committed(Set<UUID> accepted, JobTransitions.Ended ended) {}

  /**
   * The batch's finish and hand-backs, in PostgreSQL. Throws only when PostgreSQL refused the batch
   * as a whole (nothing was recorded then).
   */
  private Committed write(List<FinishedAttempt> batch, boolean again) {
    List<Completion> completions = new ArrayList<>(batch.size());
    List<HandBack> handBacks = new ArrayList<>();
    split(batch, completions, handBacks);
    Set<UUID> claimsUnwritten =
        unwritten.takeForFinish(
            completions.stream()
                .map(c -> new JobTransitions.Attempt(c.jobId(), c.attempt()))
                .toList());
    // An end through a claim whose lease lapsed to another worker is not written: that worker may
    // hold the same attempt, and the job's row could not tell the two apart.
    Set<UUID> lapsed = unwrittenLeases.lapsed(claimsUnwritten);
    if (!lapsed.isEmpty()) {
      completions.removeIf(c -> lapsed.contains(c.jobId()));
      claimsUnwritten.removeAll(lapsed);
    }
    JobTransitions.Ended ended =
        stores.transitions().finish(completions, workerId, claimsUnwritten);
    Set<UUID> accepted = new HashSet<>(ended.applied());
    writeHandedBackClaims(handBacks, batch);
    for (HandBack.Moved m : stores.transitions().handBack(handBacks, workerId)) {
      accepted.add(m.entry().id());
    }
    if (again) {
      accepted.addAll(written.earlier(batch, accepted));
    }
    return new Committed(accepted, ended);
  }

  /**
   * What follows a batch's commit: its leases released, the jobs it put back or released enqueued
   * (in that order: a retry popped at once, even by this worker, must find its lease free), its
   * ends reported.
   */
  private void afterCommit(List<FinishedAttempt> batch, Committed committed) {
    Set<UUID> accepted = committed.accepted();
    JobTransitions.Ended ended = committed.ended();
    // Written or refused: from now on nothing renews these leases.
    pending.removeAll(batch);
    List<JobTransitions.Attempt> attempts = attemptsOf(batch);
    unwritten.finished(attempts); // those taken above, lapsed or not, and handed back
    releaseLeases(attempts);
    afterLimits(batch, accepted);
    enqueueRetries(batch, accepted, ended.released());
    reports.all(batch, accepted, ended.refused());
  }

  // The loops over a batch's attempts are methods of their own: flush runs once per batch, and a
  // loop of hundreds of attempts inside it made the JIT compile it twice, once for the loop alone
  // (on-stack replacement), while a new worker's first batches were written (the thirteenth
  // machine in docs/performance-log.md).

  /**
   * The batch's attempts handed back into {@code handBacks}, the others into {@code completions}.
   */
  private static void split(
      List<FinishedAttempt> batch, List<Completion> completions, List<HandBack> handBacks) {
    for (FinishedAttempt f : batch) {
      Completion c = f.completion();
      if (c.executionStatus() == ExecutionStatus.HANDED_BACK) {
        handBacks.add(new HandBack(c.jobId(), c.attempt(), c.durationMs(), c.error()));
      } else {
        completions.add(c);
      }
    }
  }

  /**
   * The slots the finish gave back are released in the mirror (moving held jobs back to their
   * queues), and the namespaces whose attempts ended are told (their running caps have room).
   */
  private void afterLimits(List<FinishedAttempt> batch, Set<UUID> accepted) {
    List<UUID> ids = new ArrayList<>(batch.size());
    Set<String> namespaces = new HashSet<>();
    for (FinishedAttempt f : batch) {
      ids.add(f.job().id());
      namespaces.add(f.job().namespace());
    }
    stores.limits().finished(ids, accepted);
    stores.namespacesFreed().accept(namespaces);
  }

  /**
   * Puts into Redis the retries due within the horizon and the jobs this batch released (jobs that
   * waited for the ones that ended); later ones reach Redis through the promoter.
   */
  private void enqueueRetries(
      List<FinishedAttempt> batch, Set<UUID> accepted, List<QueueEntry> released) {
    Instant horizon = clock.instant().plus(stores.queueSettings().horizon);
    List<QueueEntry> entries = new ArrayList<>();
    for (QueueEntry r : released) {
      if (!r.runAt().isAfter(horizon)) {
        entries.add(r);
      }
    }
    for (FinishedAttempt f : batch) {
      Completion c = f.completion();
      if (c.nextState() == JobState.PENDING
          && accepted.contains(c.jobId())
          && !c.nextRunAt().isAfter(horizon)) {
        Job job = f.job();
        entries.add(new QueueEntry(job.id(), job.namespace(), job.priority(), c.nextRunAt()));
      }
    }
    for (int tries = 1; !entries.isEmpty(); tries++) {
      try {
        stores.queue().enqueue(entries);
        return;
      } catch (RuntimeException e) {
        if (tries >= 3) {
          log.error(
              "could not enqueue {} retries worker={}; they wait for reconciliation",
              entries.size(),
              workerId,
              e);
          return;
        }
        log.warn("enqueueing retries failed, retrying worker={}: {}", workerId, e.toString());
      }
    }
  }

  /**
   * A hand-back is a move of a RUNNING attempt: the attempts handed back with their claims still
   * unwritten (a worker stopping, or a remote worker's attempt it never took) have them written
   * first, so that they are handed back and recorded like any other.
   */
  private void writeHandedBackClaims(List<HandBack> handBacks, List<FinishedAttempt> batch) {
    if (handBacks.isEmpty()) {
      return;
    }
    Set<UUID> ids =
        unwritten.takeForFinish(
            handBacks.stream()
                .map(h -> new JobTransitions.Attempt(h.jobId(), h.attempt()))
                .toList());
    if (ids.isEmpty()) {
      return;
    }
    // Not written when lapsed: the hand-back's guard then refuses it, as for any attempt not ours.
    Set<UUID> lapsed = unwrittenLeases.lapsed(ids);
    List<JobTransitions.UnwrittenClaim> claims = new ArrayList<>();
    for (FinishedAttempt f : batch) {
      if (ids.contains(f.job().id()) && !lapsed.contains(f.job().id())) {
        claims.add(
            new JobTransitions.UnwrittenClaim(
                f.job().id(), f.job().attempt(), f.job().startedAt()));
      }
    }
    stores.transitions().writeClaims(claims, workerId);
  }

  private static List<JobTransitions.Attempt> attemptsOf(List<FinishedAttempt> batch) {
    List<JobTransitions.Attempt> attempts = new ArrayList<>(batch.size());
    for (FinishedAttempt f : batch) {
      attempts.add(new JobTransitions.Attempt(f.job().id(), f.job().attempt()));
    }
    return attempts;
  }

  /** Those of the ended attempts' leases that no newer attempt of the same job holds here. */
  private void releaseLeases(List<JobTransitions.Attempt> attempts) {
    try {
      leases.releaseEnded(attempts, pending::holdsJob);
    } catch (RuntimeException e) {
      log.warn("releasing {} leases failed worker={}: {}", attempts.size(), workerId, e.toString());
    }
  }

  /** Writes everything still queued, then stops the thread. */
  @Override
  public void close() {
    closing = true;
    queue.add(WAKE);
    try {
      thread.join(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("completion writer still busy at close worker={}", workerId);
      thread.interrupt();
    }
    after.close();
  }
}
