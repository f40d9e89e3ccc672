package io.punctual.client;

/** The states of a job, as the API reports them. */
public enum JobStatus {
  /** Waiting for its parent or dependencies to end. */
  BLOCKED,
  PENDING,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED,
  /** Final: never ran, because a run condition or a required dependency could no longer hold. */
  SKIPPED;

  /** Whether the job will not change any more. */
  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED || this == SKIPPED;
  }
}
