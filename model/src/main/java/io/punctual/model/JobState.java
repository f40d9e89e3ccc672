package io.punctual.model;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Every state a job can be in, and the only place that says which moves between them are legal.
 *
 * <p>The {@link Transition} table is the single source of truth: every write of a job's status is
 * one of its named transitions, a conditional statement of {@code io.punctual.store.JobTransitions}
 * guarded by the current status (and, for a running job, by the attempt number) whose source and
 * target states are literals. A test of the build reads every SQL resource that writes a job's
 * status and fails on a (from, to) pair not in the table; the {@code jobs_status_check} constraint
 * lists these names. {@code docs/state-machine.md} draws it.
 */
public enum JobState {
  /**
   * Waiting for its parent or its dependencies to end (see {@link RunCondition}); not in Redis. The
   * step that ends the last of them moves it on, in the same transaction: to PENDING when every
   * condition holds, to SKIPPED as soon as one can no longer hold.
   */
  BLOCKED,
  /** Stored and waiting for its {@code run_at}. Enqueued in Redis once inside the horizon. */
  PENDING,
  /** Claimed by a worker for attempt {@code attempt}; that number is the fencing token. */
  RUNNING,
  /** Final: the handler returned normally. */
  SUCCEEDED,
  /** Final: attempts used up, or the handler raised a non-retryable error. */
  FAILED,
  /** Final: cancelled over the API before it could finish. */
  CANCELLED,
  /**
   * Final: never ran, because the run condition on its parent or a required dependency can no
   * longer hold (the reason is in {@code last_error}).
   */
  SKIPPED;

  private static final Set<JobState> TERMINAL = EnumSet.of(SUCCEEDED, FAILED, CANCELLED, SKIPPED);

  /** The states a job may be created in: BLOCKED when it waits for other jobs, else PENDING. */
  public static JobState initial(boolean waitsForOtherJobs) {
    return waitsForOtherJobs ? BLOCKED : PENDING;
  }

  public boolean isTerminal() {
    return TERMINAL.contains(this);
  }

  /** The transitions that exist, one named event each; nothing else may change a job's status. */
  public enum Transition {
    /** A worker confirmed its Redis claim in PostgreSQL: attempt := attempt + 1. */
    CLAIM(PENDING, RUNNING),
    /** The handler succeeded. */
    SUCCEED(RUNNING, SUCCEEDED),
    /** The attempt failed (or timed out) and attempts remain: back to PENDING at a later run_at. */
    RETRY(RUNNING, PENDING),
    /** The attempt failed and no attempt remains, or the error is non-retryable. */
    FAIL(RUNNING, FAILED),
    /** Cancelled before it ran. */
    CANCEL_PENDING(PENDING, CANCELLED),
    /**
     * Cancelled while running: the worker sees it at its next heartbeat and its result is refused.
     */
    CANCEL_RUNNING(RUNNING, CANCELLED),
    /**
     * The reaper found the attempt's worker gone (no heartbeat past the grace) and attempts remain.
     */
    RESCUE(RUNNING, PENDING),
    /** The reaper found the attempt's worker gone and no attempt remains. */
    RESCUE_EXHAUSTED(RUNNING, FAILED),
    /**
     * The attempt's worker gave it back: its shutdown grace ended with the handler still running,
     * or it found a claim whose commit it could not confirm. PENDING again, due now, and {@code
     * max_attempts + 1}, so the handoff does not use up one of the job's attempts.
     */
    HAND_BACK(RUNNING, PENDING),
    /** Every job it waited for has ended and every run condition holds. */
    UNBLOCK(BLOCKED, PENDING),
    /** A job it waited for ended in a way that makes a run condition impossible. */
    SKIP(BLOCKED, SKIPPED),
    /** Cancelled (alone, or with its workflow) while still waiting for other jobs. */
    CANCEL_BLOCKED(BLOCKED, CANCELLED),
    /**
     * An operator retried a failed job ({@code POST /api/v1/jobs/{id}/retry}): it runs again, as a
     * new attempt, with at least one attempt left ({@code max_attempts >= attempt + 1}).
     */
    RERUN_FAILED(FAILED, PENDING),
    /** As {@link #RERUN_FAILED}, for a cancelled job. */
    RERUN_CANCELLED(CANCELLED, PENDING),
    /**
     * As {@link #RERUN_FAILED}, for a skipped job: it runs without waiting again for the jobs it
     * was skipped for.
     */
    RERUN_SKIPPED(SKIPPED, PENDING),
    /**
     * {@link #SUCCEED} of an attempt whose claim was never written: a worker reads a plain claim (a
     * namespace without limits) instead of writing it, and writes it only once the attempt outlives
     * {@code worker.claimWriteAfter}; one that ends sooner is claimed and ended in this one write,
     * {@code attempt := attempt + 1}, guarded by the attempt the claim read.
     */
    SUCCEED_UNWRITTEN(PENDING, SUCCEEDED),
    /**
     * {@link #RETRY} of an attempt whose claim was never written (see {@link #SUCCEED_UNWRITTEN}).
     */
    RETRY_UNWRITTEN(PENDING, PENDING),
    /**
     * {@link #FAIL} of an attempt whose claim was never written (see {@link #SUCCEED_UNWRITTEN}).
     */
    FAIL_UNWRITTEN(PENDING, FAILED);

    private final JobState from;
    private final JobState to;

    Transition(JobState from, JobState to) {
      this.from = from;
      this.to = to;
    }

    public JobState from() {
      return from;
    }

    public JobState to() {
      return to;
    }
  }

  /** Whether any named transition leads from this state to {@code target}. */
  public boolean canMoveTo(JobState target) {
    return Moves.TARGETS.get(this).contains(target);
  }

  /**
   * Each state's targets, built once from the transitions: {@link Completion} asks on every
   * attempt's end, and {@code Transition.values()} copies its array on each call.
   */
  private static final class Moves {
    private static final Map<JobState, Set<JobState>> TARGETS = targets();

    private static Map<JobState, Set<JobState>> targets() {
      Map<JobState, Set<JobState>> targets = new EnumMap<>(JobState.class);
      for (JobState s : JobState.values()) {
        targets.put(s, EnumSet.noneOf(JobState.class));
      }
      for (Transition t : Transition.values()) {
        targets.get(t.from).add(t.to);
      }
      return targets;
    }
  }
}
