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
  LOST
}
