package io.punctual.worker.heartbeat;

import io.punctual.model.Job;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.Attempt;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.config.WorkerSettings;
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
 * Reports this worker's attempts alive in PostgreSQL in one statement: those running and those
 * whose result waits to be written. A running attempt PostgreSQL no longer counts as current
 * (cancelled over the API, or rescued by the reaper) is stopped: its cancellation signal is set and
 * its thread interrupted. The leases of the attempts PostgreSQL confirmed are renewed, or taken
 * again if Redis lost them. Renewing leases does not wait for this: {@link LeaseKeeper} does it on
 * its own thread, so a heartbeat stuck on an unreachable PostgreSQL holds up no lease.
 */
public final class Heartbeater {
  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final JobTransitions transitions;
  private final RunningAttempts running;
  private final LeaseKeeper leases;
  private final UnwrittenClaims unwritten;
  private final WorkerSettings settings;

  public Heartbeater(
      JobTransitions transitions,
      RunningAttempts running,
      LeaseKeeper leases,
      WorkerSettings settings) {
    this(transitions, running, leases, new UnwrittenClaims(), settings);
  }

  /**
   * {@code unwritten}: the attempts whose claims are not written yet, left out (their rows are
   * still PENDING; their claims are written within {@code worker.claimWriteAfter}, see {@link
   * ClaimWriter}).
   */
  public Heartbeater(
      JobTransitions transitions,
      RunningAttempts running,
      LeaseKeeper leases,
      UnwrittenClaims unwritten,
      WorkerSettings settings) {
    this.transitions = transitions;
    this.running = running;
    this.leases = leases;
    this.unwritten = unwritten;
    this.settings = settings;
  }

  /** One beat; returns how many attempts it stopped. Throws when PostgreSQL did not answer. */
  public int runOnce() {
    List<RunningAttempt> snapshot = running.snapshot();
    Set<Attempt> attempts = new HashSet<>(leases.attempts());
    attempts.removeIf(a -> unwritten.isUnwritten(a.jobId(), a.attempt()));
    if (attempts.isEmpty()) {
      return 0;
    }
    Set<UUID> current = transitions.heartbeat(new ArrayList<>(attempts));
    int stopped = 0;
    for (RunningAttempt a : snapshot) {
      // An attempt that ended meanwhile may already be recorded; only stop ones still running.
      if (attempts.contains(a.attempt())
          && !current.contains(a.job().id())
          && running.contains(a)
          && a.stop(StopReason.CANCELLED)) {
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
    leases.regain(stillKept(current));
    return stopped;
  }

  /**
   * The current ids whose attempt the worker still runs or still has to record: one whose result
   * was written since the statement above has had its lease released, which must stay so.
   */
  private Set<UUID> stillKept(Set<UUID> current) {
    Set<UUID> kept = new HashSet<>();
    for (Attempt a : leases.attempts()) {
      if (current.contains(a.jobId())) {
        kept.add(a.jobId());
      }
    }
    return kept;
  }
}
