package io.punctual.worker.heartbeat;

import io.punctual.queue.lease.Redlock;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.complete.PendingResults;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.run.RunningAttempt;
import io.punctual.worker.run.RunningAttempts;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker's Redlock leases alive: those of the attempts it runs and of the attempts whose
 * result waits to be written ({@link PendingResults}). It runs on a thread of its own and talks to
 * Redis only, so a PostgreSQL that is down, or that hangs a heartbeat on a dead connection, cannot
 * hold it up: the reaper rescues an attempt only when its heartbeat is stale <em>and</em> its lease
 * is gone, so while this renews, an outage of the database alone gets nothing rescued.
 *
 * <p>It only extends leases the worker still holds. A lease that is gone (Redis lost its data) is
 * taken again by {@link #regain} once PostgreSQL has confirmed the attempt is still current.
 */
public final class LeaseKeeper {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  private final Redlock redlock;
  private final RunningAttempts running;
  private final PendingResults pending;
  private final WorkerSettings settings;
  private final IntConsumer onLost;

  public LeaseKeeper(
      Redlock redlock, RunningAttempts running, PendingResults pending, WorkerSettings settings) {
    this(redlock, running, pending, settings, lost -> {});
  }

  /** {@code onLost} is told how many leases were gone and could not be taken back. */
  public LeaseKeeper(
      Redlock redlock,
      RunningAttempts running,
      PendingResults pending,
      WorkerSettings settings,
      IntConsumer onLost) {
    this.redlock = redlock;
    this.running = running;
    this.pending = pending;
    this.settings = settings;
    this.onLost = onLost;
  }

  /** The attempts whose leases this worker keeps: running, or ended with the result pending. */
  Set<Attempt> attempts() {
    Set<Attempt> all = new LinkedHashSet<>();
    for (RunningAttempt a : running.snapshot()) {
      all.add(a.attempt());
    }
    all.addAll(pending.snapshot());
    return all;
  }

  /** Extends every lease the worker holds for its attempts; returns how many are still held. */
  public int renewAll() {
    Set<UUID> ids = new HashSet<>();
    for (Attempt a : attempts()) {
      ids.add(a.jobId());
    }
    if (ids.isEmpty()) {
      return 0;
    }
    Set<UUID> held = redlock.renew(ids, settings.workerId, settings.leaseTtl);
    if (held.size() < ids.size()) {
      log.debug(
          "{} of {} leases not renewed (released meanwhile, or lost) worker={}",
          ids.size() - held.size(),
          ids.size(),
          settings.workerId);
    }
    return held.size();
  }

  /**
   * Renews the leases of attempts PostgreSQL has just confirmed current and takes again those that
   * are gone (PostgreSQL's attempt number is the fence; the lease is only a liveness signal).
   */
  void regain(Collection<UUID> current) {
    if (current.isEmpty()) {
      return;
    }
    Set<UUID> held = redlock.renewOrAcquire(current, settings.workerId, settings.leaseTtl);
    Set<UUID> lost = new HashSet<>(current);
    lost.removeAll(held);
    if (!lost.isEmpty()) {
      onLost.accept(lost.size());
      log.warn("{} running attempts lost their lease worker={}", lost.size(), settings.workerId);
    }
  }
}
