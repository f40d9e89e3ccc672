package io.punctual.worker.heartbeat;

import io.punctual.model.Job;
import io.punctual.queue.liveness.HeldClaims;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.UnwrittenClaim;
import io.punctual.worker.claim.UnwrittenClaims;
import io.punctual.worker.claim.UnwrittenLeases;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.run.JobMdc;
import io.punctual.worker.run.RunningAttempt;
import io.punctual.worker.run.RunningAttempts;
import io.punctual.worker.run.StopReason;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the claims of attempts that outlived {@code worker.claimWriteAfter} (PENDING -> RUNNING
 * with the attempt the worker holds: {@code JobTransitions.writeClaims}), in one statement per
 * pass, and stops the handlers whose write is refused (the job was cancelled, or a reaper rescued
 * the attempt). A claim whose lease lapsed to another worker ({@link UnwrittenLeases}) is not
 * written, and its handler is stopped too. Then takes the claims no longer held unwritten out of
 * the worker's held-claims set in Redis. A write that fails is tried again at the next pass:
 * writing a claim twice is harmless (the second finds it written by this worker).
 */
public final class ClaimWriter {
  private static final Logger log = LoggerFactory.getLogger(ClaimWriter.class);

  private final JobTransitions transitions;
  private final UnwrittenClaims claims;
  private final UnwrittenLeases leases;
  private final HeldClaims held;
  private final RunningAttempts running;
  private final WorkerSettings settings;

  public ClaimWriter(
      JobTransitions transitions,
      UnwrittenClaims claims,
      UnwrittenLeases leases,
      HeldClaims held,
      RunningAttempts running,
      WorkerSettings settings) {
    this.transitions = transitions;
    this.claims = claims;
    this.leases = leases;
    this.held = held;
    this.running = running;
    this.settings = settings;
  }

  /** One pass; returns how many claims it wrote. Throws when PostgreSQL or Redis failed. */
  public int runOnce() {
    return write(settings.claimWriteAfter.toNanos());
  }

  /** Writes every claim held unwritten now, whatever its age (a worker stopping). */
  public int writeAll() {
    return write(0);
  }

  private int write(long minAgeNanos) {
    List<UnwrittenClaim> due = claims.takeDue(minAgeNanos);
    int written = 0;
    if (!due.isEmpty()) {
      Set<UUID> ids = new HashSet<>();
      due.forEach(c -> ids.add(c.jobId()));
      Set<UUID> done;
      try {
        Set<UUID> lapsed = leases.lapsed(ids);
        if (!lapsed.isEmpty()) {
          ids.removeAll(lapsed);
          due = due.stream().filter(c -> !lapsed.contains(c.jobId())).toList();
          for (Job job : claims.refused(lapsed)) {
            stop(job, "its lease lapsed to another worker");
          }
        }
        done = transitions.writeClaims(due, settings.workerId); // none: no statement
      } catch (RuntimeException e) {
        claims.notWritten(ids);
        throw e;
      }
      ids.removeAll(done);
      claims.written(done);
      written = done.size();
      for (Job job : claims.refused(ids)) {
        stop(job, "refused when written (cancelled or rescued)");
      }
    }
    List<UUID> letGo = claims.drainLetGo();
    try {
      held.letGo(settings.workerId, letGo);
    } catch (RuntimeException e) {
      claims.gaveUp(letGo); // again at the next pass
      throw e;
    }
    return written;
  }

  private void stop(Job job, String why) {
    RunningAttempt a = running.of(job.id()).orElse(null);
    if (a == null || a.job().attempt() != job.attempt() || !a.stop(StopReason.CANCELLED)) {
      return;
    }
    try (JobMdc mdc = JobMdc.of(job, settings.workerId)) {
      log.info(
          "claim not written: {}; interrupting job={} attempt={} worker={}",
          why,
          job.id(),
          job.attempt(),
          settings.workerId);
    }
  }
}
