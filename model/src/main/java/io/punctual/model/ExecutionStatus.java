package io.punctual.model;

/** The outcome of one attempt, as recorded in {@code job_executions}. */
public enum ExecutionStatus {
  /** The attempt is under way. */
  RUNNING,
  SUCCEEDED,
  /** The handler threw or reported a failure. */
  FAILED,
  /** The handler overran the job's timeout and was interrupted. */
  TIMED_OUT,
  /** The job was cancelled while this attempt ran. */
  CANCELLED,
  /** The worker disappeared (no heartbeat); recorded by the reaper. */
  LOST,
  /**
   * The worker stopped (its shutdown grace ended, or a claim's commit had an unknown outcome) and
   * gave the attempt back: the job is PENDING again at once, and this attempt does not count
   * against its {@code maxAttempts} (transition HAND_BACK).
   */
  HANDED_BACK
}
