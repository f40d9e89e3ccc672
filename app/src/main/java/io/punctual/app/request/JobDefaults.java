package io.punctual.app.request;

import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.requests.JobFields;
import io.punctual.requests.jobs.SubmitLimits;
import java.util.Objects;

/**
 * What a job request that leaves a field out gets, and the limits of its fields: the same as the
 * REST API's {@code api} settings, whose defaults {@link #API} are. Keep them equal to the API's
 * where both submit jobs with idempotency keys: a request's hash is taken with the defaults
 * applied, so the same request over REST and in a transaction is one job only when both fill it in
 * alike.
 *
 * @param priority {@code api.defaultPriority}
 * @param maxAttempts {@code api.defaultMaxAttempts}
 * @param maxMaxAttempts {@code api.maxMaxAttempts}
 * @param backoff {@code api.defaultBackoff}
 * @param maxPayloadBytes {@code api.maxPayloadBytes}
 */
public record JobDefaults(
    Priority priority, int maxAttempts, int maxMaxAttempts, Backoff backoff, int maxPayloadBytes) {

  /** The API's defaults: normal priority, 3 attempts (at most 100), backoff 1 s x2, 256 KiB. */
  public static final JobDefaults API =
      new JobDefaults(Priority.NORMAL, 3, 100, Backoff.DEFAULT, 262_144);

  /** The most jobs of one batch ({@code api.maxBatchSize}'s default). */
  public static final int MAX_BATCH_SIZE = 1000;

  /**
   * The most steps of one workflow, and the most jobs one job may wait for ({@code
   * api.maxWorkflowJobs}'s default).
   */
  public static final int MAX_WORKFLOW_JOBS = 10_000;

  public JobDefaults {
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(backoff, "backoff");
    if (maxMaxAttempts < 1 || maxAttempts < 1 || maxAttempts > maxMaxAttempts) {
      throw new IllegalArgumentException("need 1 <= maxAttempts <= maxMaxAttempts");
    }
    if (maxPayloadBytes < 1) {
      throw new IllegalArgumentException("maxPayloadBytes must be positive");
    }
  }

  /**
   * As the API's parser takes them; a {@code callback.url} may name what the default outbound
   * policy allows (the public internet), as over REST with an empty {@code worker.http.allow}.
   */
  public SubmitLimits limits() {
    return new SubmitLimits(
        new JobFields.Rules(maxPayloadBytes, priority, maxAttempts, maxMaxAttempts, backoff),
        MAX_BATCH_SIZE,
        MAX_WORKFLOW_JOBS);
  }
}
