package io.punctual.app.request;

import io.punctual.common.config.SettingsErrors;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.outbound.address.OutboundPolicy;
import io.punctual.requests.JobFields;
import io.punctual.requests.jobs.SubmitLimits;
import java.util.List;
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
 * @param callbackAllow {@code worker.http.allow}: the CIDR blocks, addresses and host names a
 *     {@code callback.url} may name beyond the public internet (none by default)
 */
public record JobDefaults(
    Priority priority,
    int maxAttempts,
    int maxMaxAttempts,
    Backoff backoff,
    int maxPayloadBytes,
    List<String> callbackAllow) {

  /**
   * The API's defaults: normal priority, 3 attempts (at most 100), backoff 1 s x2, 256 KiB, a
   * callback to the public internet only.
   */
  public static final JobDefaults API =
      new JobDefaults(Priority.NORMAL, 3, 100, Backoff.DEFAULT, 262_144);

  /** Callbacks to the public internet only (an empty {@code worker.http.allow}). */
  public JobDefaults(
      Priority priority,
      int maxAttempts,
      int maxMaxAttempts,
      Backoff backoff,
      int maxPayloadBytes) {
    this(priority, maxAttempts, maxMaxAttempts, backoff, maxPayloadBytes, List.of());
  }

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
    callbackAllow = List.copyOf(OutboundPolicy.split(callbackAllow));
    callbackPolicy(callbackAllow); // each entry that is not a block, an address or a host, named
  }

  /**
   * These defaults with callbacks also allowed to what {@code entries} name (as the API's {@code
   * worker.http.allow}: CIDR blocks, IP addresses, host names; an entry may hold several,
   * comma-separated). Keep it the API's list, so that a request refused over REST is refused here.
   *
   * @throws io.punctual.common.config.InvalidSettingsException naming each entry that is none of
   *     these
   */
  public JobDefaults withCallbackAllow(List<String> entries) {
    return new JobDefaults(
        priority, maxAttempts, maxMaxAttempts, backoff, maxPayloadBytes, entries);
  }

  private static OutboundPolicy callbackPolicy(List<String> entries) {
    SettingsErrors errors = new SettingsErrors();
    OutboundPolicy policy = OutboundPolicy.parse(entries, "callbackAllow", errors);
    errors.throwIfAny();
    return policy;
  }

  /**
   * As the API's parser takes them; a {@code callback.url} may name the public internet and what
   * {@link #callbackAllow} opens, as over REST with the same {@code worker.http.allow}.
   */
  public SubmitLimits limits() {
    return new SubmitLimits(
        new JobFields.Rules(
            maxPayloadBytes,
            priority,
            maxAttempts,
            maxMaxAttempts,
            backoff,
            callbackPolicy(callbackAllow)),
        MAX_BATCH_SIZE,
        MAX_WORKFLOW_JOBS);
  }
}
