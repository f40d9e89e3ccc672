package io.punctual.worker.run;

/** Why a running attempt was asked to stop (its thread is interrupted too). */
public enum StopReason {
  /** The job was cancelled over the API, or is no longer this attempt's (rescued). */
  CANCELLED,
  /** The attempt overran the job's timeout. */
  TIMED_OUT,
  /** The worker is shutting down and the grace period is over. */
  SHUTDOWN
}
