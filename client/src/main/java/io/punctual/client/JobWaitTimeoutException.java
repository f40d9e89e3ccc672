package io.punctual.client;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * {@link PunctualClient#awaitFinal} gave up: the job was not final within the time given. {@link
 * #job()} is the job as last read (still BLOCKED, PENDING or RUNNING); the job itself goes on.
 */
public final class JobWaitTimeoutException extends TimeoutException {
  private static final long serialVersionUID = 1L;

  private final transient JobView job;
  private final Duration waited;

  JobWaitTimeoutException(JobView job, Duration waited) {
    super("job " + job.id() + " is still " + job.status() + " after waiting " + waited);
    this.job = job;
    this.waited = waited;
  }

  /** The job as last read. */
  public JobView job() {
    return job;
  }

  /** How long the call waited. */
  public Duration waited() {
    return waited;
  }
}
