package io.punctual.api.bulk;

import io.dropwizard.lifecycle.Managed;
import io.punctual.api.bulk.BulkActionStore.Acted;
import io.punctual.api.bulk.BulkActionStore.Owned;
import io.punctual.api.bulk.BulkActionStore.Step;
import io.punctual.api.bulk.BulkActionStore.TakenOver;
import io.punctual.api.jobs.JobActions;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.model.Job;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.CancelResult;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Works through bulk actions in the background of an API process, batch by batch ({@link
 * BulkActionStore#step}: each batch is acted on and counted in one transaction, and beats this
 * process's heartbeat on the action). The process that accepts an action owns it; every {@code
 * staleAfter / 2} each process takes over (and finishes) the running actions without owner or whose
 * owner has not beaten for {@code staleAfter}: one whose API process died, or stopped. A process
 * that lost an action (taken over while it was slow) finds out at its next batch and stops. An
 * action taken over more than {@value #MAX_TAKEOVERS} times without a batch done in between is
 * marked {@code failed} with the reason instead. {@link #runOnce()} is one round of the takeover
 * loop, in the calling thread.
 *
 * <p>A retry adds pending jobs like a submit, so before each batch of a bulk retry the namespace's
 * quotas are asked ({@link RetryRoom}): the batch is cut to what they admit and takes its rate
 * tokens; with the rate spent the action waits (beating its heartbeat); with the namespace at its
 * maxPending (or deactivated) the action stops as {@code failed}, the reason in its {@code error},
 * the jobs not reached left as they were.
 */
public final class BulkRunner implements Managed {
  private static final Logger log = LoggerFactory.getLogger(BulkRunner.class);

  /** Takeovers in a row without progress after which an action is marked failed. */
  static final int MAX_TAKEOVERS = 3;

  /** Most actions one round of the takeover loop takes. */
  private static final int TAKE_AT_ONCE = 10;

  /**
   * What a namespace's quotas admit of a bulk retry's next batch ({@link NamespaceGate#roomFor}).
   */
  @FunctionalInterface
  public interface RetryRoom {
    NamespaceGate.Room roomFor(String namespace, int wanted);
  }

  /**
   * How an action is worked through: {@code batchSize} jobs per transaction; an owner that has not
   * beaten for {@code staleAfter} loses its actions to a takeover.
   */
  public record Pacing(int batchSize, Duration staleAfter) {}

  private final BulkActionStore store;
  private final JobActions actions;
  private final RetryRoom room;
  private final int batchSize;
  private final Duration staleAfter;
  private final Clock clock;
  private final String owner;
  private final ExecutorService executor =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("punctual-bulk-", 0).factory());
  private ScheduledExecutorService loop;

  public BulkRunner(
      BulkActionStore store,
      JobActions actions,
      RetryRoom room,
      Pacing pacing,
      Clock clock,
      String owner) {
    this.store = store;
    this.actions = actions;
    this.room = room;
    this.batchSize = pacing.batchSize();
    this.staleAfter = pacing.staleAfter();
    this.clock = clock;
    this.owner = owner;
  }

  /** A name for this process as the owner of bulk actions: its host and a random suffix. */
  public static String newOwner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "api";
    }
    return host + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** This process's name on the actions it owns. */
  public String owner() {
    return owner;
  }

  /** Works through action {@code id}, created owned by this process, in the background. */
  public void start(UUID id) {
    // Its end is recorded in bulk_actions (work catches everything), not read from the future.
    Future<?> unused = executor.submit(() -> work(id));
  }

  /**
   * One round of the takeover loop: takes over the running actions nobody works on (see the class
   * comment) and works through each to its end, in the calling thread; returns how many it took.
   */
  public int runOnce() {
    List<TakenOver> taken = store.takeOver(owner, clock.instant().minus(staleAfter), TAKE_AT_ONCE);
    for (TakenOver t : taken) {
      Owned a = t.action();
      if (t.takeovers() > MAX_TAKEOVERS) {
        String reason =
            "abandoned: taken over "
                + MAX_TAKEOVERS
                + " times without a batch done"
                + (t.lastError() == null ? "" : " (last: " + t.lastError() + ")");
        store.fail(a.id(), owner, reason);
        log.warn("bulk action failed bulk={} namespace={}: {}", a.id(), a.namespace(), reason);
        continue;
      }
      log.info(
          "bulk action taken over bulk={} namespace={} action={} owner={} takeovers={}",
          a.id(),
          a.namespace(),
          a.action(),
          owner,
          t.takeovers());
      work(a.id());
    }
    return taken.size();
  }

  /** Works through action {@code id} while this process owns it; never throws. */
  void work(UUID id) {
    try {
      String retryNamespace =
          store
              .owned(id, owner)
              .filter(a -> a.action().equals(BulkRequest.RETRY))
              .map(Owned::namespace)
              .orElse(null);
      boolean more = true;
      while (more) {
        more = retryNamespace == null ? step(id, batchSize) : admittedStep(id, retryNamespace);
      }
    } catch (RuntimeException e) {
      log.warn("bulk action batch failed bulk={}, released for a takeover: {}", id, e.toString());
      try {
        store.release(id, owner, "batch failed: " + e.getClass().getSimpleName());
      } catch (RuntimeException again) {
        log.warn("bulk action not released bulk={}: {}", id, again.toString());
      }
    }
  }

  /**
   * One batch of action {@code id} and its Redis side; returns whether more may follow (false: the
   * action ended, or this process no longer owns it).
   */
  boolean step(UUID id) {
    return step(id, batchSize);
  }

  /**
   * One batch of a bulk retry in {@code namespace}, of the size its quotas admit (or a wait, or the
   * action's end when they say stop); returns whether more may follow.
   */
  private boolean admittedStep(UUID id, String namespace) {
    return switch (room.roomFor(namespace, batchSize)) {
      case NamespaceGate.Room.Take take -> {
        try (NamespaceGate.Admission admitted = take.admission()) {
          yield step(id, take.jobs());
        }
      }
      case NamespaceGate.Room.Wait wait -> pause(id, wait.retryIn());
      case NamespaceGate.Room.Stop stop -> {
        store.fail(id, owner, "stopped: " + stop.reason());
        log.info("bulk retry stopped by quota bulk={} namespace={}", id, namespace);
        yield false;
      }
    };
  }

  /**
   * Waits up to {@code wait} (at most a quarter of staleAfter at a time), then beats the heartbeat;
   * false when the action is no longer ours or the process stops.
   */
  private boolean pause(UUID id, Duration wait) {
    long slice = Math.max(1, staleAfter.toMillis() / 4);
    try {
      Thread.sleep(Math.max(1, Math.min(wait.toMillis(), slice)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return store.beat(id, owner);
  }

  private boolean step(UUID id, int limit) {
    Step<Effects> step = store.step(id, owner, limit, BulkRunner::act);
    return switch (step) {
      case Step.Batch<Effects> b -> {
        afterCommit(b.acted());
        yield true;
      }
      case Step.Finished<Effects> f -> {
        afterCommit(f.acted());
        log.info("bulk action done bulk={} owner={}", id, owner);
        yield false;
      }
      case Step.Lost<Effects> lost -> {
        log.info("bulk action no longer ours bulk={} owner={}", id, owner);
        yield false;
      }
    };
  }

  /**
   * Acts on one batch inside its transaction (the guarded transitions: a job whose state changed
   * since the action was accepted is left alone and counted as failed).
   */
  private static Acted<Effects> act(Handle h, Owned action, List<UUID> ids, Instant now) {
    if (action.action().equals(BulkRequest.RETRY)) {
      List<Job> moved = JobTransitions.rerunIn(h, action.namespace(), ids, now);
      return new Acted<>(moved.size(), new Effects(moved, List.of()));
    }
    List<CancelResult.Cancelled> cancelled = new ArrayList<>();
    for (UUID id : ids) {
      if (JobTransitions.cancelIn(h, action.namespace(), id, now)
          instanceof CancelResult.Cancelled c) {
        cancelled.add(c);
      }
    }
    return new Acted<>(cancelled.size(), new Effects(List.of(), cancelled));
  }

  /** What a committed batch leaves to do in Redis: the jobs it retried, and those it cancelled. */
  private record Effects(List<Job> retried, List<CancelResult.Cancelled> cancelled) {}

  /** The Redis side of a committed batch: enqueue what it made PENDING, drop what it cancelled. */
  private void afterCommit(Acted<Effects> acted) {
    if (acted == null) {
      return;
    }
    actions.afterRetry(acted.afterCommit().retried());
    actions.afterCancels(acted.afterCommit().cancelled());
  }

  @Override
  public void start() {
    long every = Math.max(1, staleAfter.toMillis() / 2);
    loop =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("punctual-bulk-takeover").daemon().factory());
    // each round catches and logs what goes wrong (runOnceLogged): nothing to read from the future
    Future<?> unused =
        loop.scheduleWithFixedDelay(this::runOnceLogged, every, every, TimeUnit.MILLISECONDS);
  }

  private void runOnceLogged() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      log.warn("bulk action takeover round failed: {}", e.toString());
    }
  }

  @Override
  public void stop() throws InterruptedException {
    if (loop != null) {
      loop.shutdownNow();
    }
    executor.shutdownNow();
    if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
      log.warn("bulk action batches still running at shutdown");
    }
    try {
      int released = store.releaseAll(owner);
      if (released > 0) {
        log.info(
            "bulk actions released at shutdown: {} (another API process takes them)", released);
      }
    } catch (RuntimeException e) {
      log.warn("bulk actions not released at shutdown (taken over once stale): {}", e.toString());
    }
  }
}
