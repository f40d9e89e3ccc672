package io.punctual.alerter.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import java.time.Duration;

/**
 * The alerter's knobs (the {@code alerts} section; it runs in the reaper role). Mutable Jackson
 * bean; every field has a default that works. Where notices may go and the secrets that sign them
 * are the callbacks': {@code worker.http.allow}, and the secrets of the rule's namespace.
 */
public class AlerterSettings implements ValidatedSettings {
  /** Whether the reaper runs the alerter at all. */
  @JsonProperty public boolean enabled = true;

  /** How often the alerter evaluates conditions, folds outbox events and sends due notices. */
  @JsonProperty public Duration interval = Duration.ofSeconds(5);

  /** Most outbox events folded, and most notices sent, in one pass. */
  @JsonProperty public int batchSize = 100;

  /** Attempts at one notice before it is given up ({@code failed}). */
  @JsonProperty public int maxAttempts = 12;

  /** Wait after the first failed attempt; it doubles after each further one. */
  @JsonProperty public Duration initialBackoff = Duration.ofSeconds(10);

  /** Longest wait between two attempts at one notice. */
  @JsonProperty public Duration maxBackoff = Duration.ofMinutes(10);

  /** Time allowed to open a connection to a receiver. */
  @JsonProperty public Duration connectTimeout = Duration.ofSeconds(5);

  /** Time allowed for one whole exchange with a receiver. */
  @JsonProperty public Duration requestTimeout = Duration.ofSeconds(10);

  /**
   * How long a notice an alerter took is its own: another alerter (several reapers) tries it again
   * only after this, should the first one die mid-send. Longer than {@code requestTimeout}.
   */
  @JsonProperty public Duration lease = Duration.ofMinutes(1);

  /**
   * An incident of an event kind (job_failed, timed_out, duration_over, attempts_rescued,
   * fire_time_missed) is resolved once no new event came for this long.
   */
  @JsonProperty public Duration resolveAfter = Duration.ofMinutes(10);

  /** Fire times the planner recorded without a job this long ago or less are looked at. */
  @JsonProperty public Duration missedLookback = Duration.ofHours(1);

  /**
   * How far back (by scheduled time) consecutive_failures and failure_rate look at ended jobs:
   * bounds what one evaluation reads.
   */
  @JsonProperty public Duration conditionLookback = Duration.ofDays(1);

  @Override
  public void validate(SettingsErrors errors) {
    errors.positive(interval, "alerts.interval");
    errors.positive(initialBackoff, "alerts.initialBackoff");
    errors.positive(maxBackoff, "alerts.maxBackoff");
    errors.positive(connectTimeout, "alerts.connectTimeout");
    errors.positive(requestTimeout, "alerts.requestTimeout");
    errors.positive(lease, "alerts.lease");
    errors.positive(resolveAfter, "alerts.resolveAfter");
    errors.positive(missedLookback, "alerts.missedLookback");
    errors.positive(conditionLookback, "alerts.conditionLookback");
    errors.require(batchSize >= 1 && batchSize <= 10_000, "alerts.batchSize must be 1 to 10000");
    errors.require(maxAttempts >= 1, "alerts.maxAttempts must be >= 1");
    errors.require(
        lease == null || requestTimeout == null || lease.compareTo(requestTimeout) > 0,
        "alerts.lease must be longer than alerts.requestTimeout");
    errors.require(
        initialBackoff == null || maxBackoff == null || maxBackoff.compareTo(initialBackoff) >= 0,
        "alerts.maxBackoff must be at least alerts.initialBackoff");
  }
}
