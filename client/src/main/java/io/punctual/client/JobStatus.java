package io.punctual.client;

/** The states of a job, as the API reports them. */
public enum JobStatus {
  PENDING,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED;

  /** Whether the job will not change any more. */
  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}
