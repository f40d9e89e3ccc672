package io.punctual.worker.heartbeat;

import io.punctual.common.Stores;
import io.punctual.common.job.Job;
import io.punctual.common.store.JobStore.Attempt;
import io.punctual.worker.WorkerSettings;
import io.punctual.worker.run.JobMdc;
import io.punctual.worker.run.RunningAttempt;
import io.punctual.worker.run.RunningAttempts;
import io.punctual.worker.run.StopReason;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports running attempts alive in one statement and renews their leases in one Redlock batch
 * (also while PostgreSQL is unreachable, so that an outage alone does not get them rescued). An
 * attempt PostgreSQL no longer counts as current (cancelled over the API, or rescued by the reaper)
 * is stopped: its cancellation signal is set and its thread interrupted.
 */
public final class Heartbeater {
  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final Stores stores;
  private final RunningAttempts running;
  private final WorkerSettings settings;

  public Heartbeater(Stores stores, RunningAttempts running, WorkerSettings settings) {
    this.stores = stores;
    this.running = running;
    this.settings = settings;
  }

  /** One beat; returns how many attempts it stopped. */
  public int runOnce() {
    List<RunningAttempt> snapshot = running.snapshot();
    if (snapshot.isEmpty()) {
      return 0;
    }
    List<Attempt> attempts = new ArrayList<>(snapshot.size());
    for (RunningAttempt a : snapshot) {
      attempts.add(a.attempt());
    }
    Set<UUID> current;
    try {
      current = stores.jobs.heartbeat(attempts);
    } catch (RuntimeException e) {
      // PostgreSQL is unreachable: the handlers still run, so keep their leases alive (the reaper
      // rescues an attempt only when both its heartbeat and its lease are gone).
      Set<UUID> all = new HashSet<>();
      for (RunningAttempt a : snapshot) {
        all.add(a.job().id());
      }
      renewLeases(all);
      throw e;
    }
    int stopped = 0;
    for (RunningAttempt a : snapshot) {
      // An attempt that ended meanwhile may already be recorded; only stop ones still running.
      if (!current.contains(a.job().id()) && running.contains(a) && a.stop(StopReason.CANCELLED)) {
        stopped++;
        Job job = a.job();
        try (JobMdc mdc = JobMdc.of(job, settings.workerId)) {
          log.info(
              "attempt no longer current (cancelled or rescued), interrupting job={} attempt={}"
                  + " worker={}",
              job.id(),
              job.attempt(),
              settings.workerId);
        }
      }
    }
    renewLeases(current);
    return stopped;
  }

  private void renewLeases(Set<UUID> current) {
    if (current.isEmpty()) {
      return;
    }
    Set<UUID> held = stores.redlock.renew(current, settings.workerId, settings.leaseTtl);
    Set<UUID> lost = new HashSet<>(current);
    lost.removeAll(held);
    if (lost.isEmpty()) {
      return;
    }
    // PostgreSQL's attempt number is the fence; the lease is only a liveness signal. Take it again.
    Set<UUID> regained = stores.redlock.acquire(lost, settings.workerId, settings.leaseTtl);
    if (regained.size() < lost.size()) {
      log.warn(
          "{} running attempts lost their lease worker={}",
          lost.size() - regained.size(),
          settings.workerId);
    }
  }
}
