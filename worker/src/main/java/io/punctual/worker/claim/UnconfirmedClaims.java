package io.punctual.worker.claim;

import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.HandBack;
import io.punctual.store.JobQueries;
import io.punctual.store.JobTransitions;
import io.punctual.store.JobTransitions.Attempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claim whose confirmation failed may still have committed: the connection was lost during the
 * commit, or the server shut down (SQLSTATE 57P01) after writing it. Its jobs would then sit
 * RUNNING under this worker with nobody running them, until the reaper rescued them and recorded
 * their attempts LOST. So after such a failure the worker reads the claim back, retrying with a
 * short backoff while PostgreSQL does not answer (up to {@link #PATIENCE}), and hands back at once
 * (transition HAND_BACK) every job of it that is RUNNING under this worker's id without being held
 * here: they are PENDING again, their attempts not used up. The caller then puts the claim's jobs
 * back into Redis as due now.
 */
final class UnconfirmedClaims {
  private static final Logger log = LoggerFactory.getLogger(UnconfirmedClaims.class);

  /** How long a read-back waits for PostgreSQL before it leaves the claim to the reaper. */
  static final Duration PATIENCE = Duration.ofSeconds(30);

  private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

  /** The error in the execution row of an attempt handed back this way. */
  static final String ERROR = "handed back: the worker could not confirm its claim's commit";

  private final JobQueries queries;
  private final JobTransitions transitions;
  private final Predicate<Attempt> heldHere;
  private final String workerId;

  UnconfirmedClaims(
      JobQueries queries,
      JobTransitions transitions,
      Predicate<Attempt> heldHere,
      String workerId) {
    this.queries = queries;
    this.transitions = transitions;
    this.heldHere = heldHere;
    this.workerId = workerId;
  }

  /**
   * Reads back the jobs {@code ids} of a claim whose confirmation failed and hands back those it
   * committed; returns them. Retries while PostgreSQL fails, up to {@link #PATIENCE}; then logs and
   * gives up (the reaper rescues what is left).
   */
  List<HandBack.Moved> settle(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    Duration backoff = FIRST_BACKOFF;
    for (int tries = 1; ; tries++) {
      try {
        List<HandBack.Moved> moved = transitions.handBack(committed(ids), workerId);
        if (!moved.isEmpty()) {
          log.warn(
              "{} jobs of a claim whose commit seemed to fail were committed; handed back"
                  + " worker={} tries={}",
              moved.size(),
              workerId,
              tries);
        }
        return moved;
      } catch (RuntimeException e) {
        if (System.nanoTime() + backoff.toNanos() > deadline) {
          log.error(
              "could not read back a claim of {} jobs whose commit failed, for {}; whatever it"
                  + " committed waits for the reaper worker={}",
              ids.size(),
              PATIENCE,
              workerId,
              e);
          return List.of();
        }
        log.info(
            "reading back a claim whose commit failed, retrying in {} worker={}: {}",
            backoff,
            workerId,
            e.toString());
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return List.of();
        }
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  /** The jobs of {@code ids} RUNNING under this worker that it does not hold: the claim's. */
  private List<HandBack> committed(Collection<UUID> ids) {
    List<HandBack> out = new ArrayList<>();
    for (Job job : queries.findMany(ids)) {
      if (job.status() == JobState.RUNNING
          && workerId.equals(job.workerId())
          && !heldHere.test(new Attempt(job.id(), job.attempt()))) {
        out.add(new HandBack(job.id(), job.attempt(), 0L, ERROR));
      }
    }
    return out;
  }
}
