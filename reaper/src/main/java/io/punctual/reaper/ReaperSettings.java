package io.punctual.reaper;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.store.config.AuditSettings;
import io.punctual.store.stats.StatsReader;
import java.time.Duration;

/**
 * What the reaper repairs and when. Mutable Jackson bean (the {@code reaper} section of the
 * configuration); every field has a default that works.
 */
public class ReaperSettings implements ValidatedSettings {
  /** How often the reaper looks for lost attempts and for drift between PostgreSQL and Redis. */
  @JsonProperty public Duration interval = Duration.ofSeconds(5);

  /**
   * A RUNNING attempt whose worker has not reported in for this long, and whose lease is gone, is
   * lost: the job goes back to PENDING (or FAILED when no attempt remains). Must be well above the
   * workers' {@code heartbeatInterval} and {@code leaseTtl}.
   */
  @JsonProperty public Duration rescueAfter = Duration.ofMinutes(1);

  /**
   * A PENDING job due this long ago that is not in Redis is enqueued again, and a Redis entry due
   * this long ago whose job is no longer PENDING is removed. The grace keeps the reaper out of the
   * way of a job being claimed or enqueued right now.
   */
  @JsonProperty public Duration reconcileAfter = Duration.ofSeconds(10);

  /**
   * How often the reaper looks for dead workers: those whose entry in the live-workers set passed
   * its deadline ({@code worker.livenessTtl} after their last report). Their attempts are rescued
   * at once, so a worker's death costs its jobs about {@code livenessTtl} plus this.
   */
  @JsonProperty public Duration deathCheckInterval = Duration.ofSeconds(1);

  /** Most jobs one pass rescues, re-enqueues or checks (the rest waits for the next pass). */
  @JsonProperty public int maxPerPass = 10_000;

  /**
   * Stale attempts read by one query while rescuing; a pass reads page after page, past those whose
   * lease is still held, up to {@code maxPerPass}.
   */
  @JsonProperty public int rescuePage = 500;

  /** How often partitions are created ahead and those past retention dropped. */
  @JsonProperty public Duration partitionInterval = Duration.ofHours(1);

  /** Execution history (job_executions) is kept this long, counted from the job's scheduled day. */
  @JsonProperty public Duration executionRetention = Duration.ofDays(90);

  /**
   * Final jobs are kept this long, counted from their scheduled day (a day holding a job that is
   * not final is never dropped). At least {@code executionRetention}. Idempotency keys are
   * remembered as long.
   */
  @JsonProperty public Duration jobRetention = Duration.ofDays(90);

  /**
   * The audit log's days are kept this long: not read from the {@code reaper} section but from
   * {@code audit.retention} of the same configuration (the launcher links the two).
   */
  @JsonIgnore public Duration auditRetention = new AuditSettings().retention;

  /** Rows of workers not heard of for this long leave the worker registry. */
  @JsonProperty public Duration workerRetention = Duration.ofDays(1);

  /**
   * How often the statistics rollup ({@code job_stats_minutes}) computes the last minutes again.
   */
  @JsonProperty public Duration statsInterval = Duration.ofSeconds(15);

  /**
   * How long after its end an attempt's record may land and still be counted in the statistics:
   * each rollup pass computes again the minutes from this long before where the last one stopped.
   */
  @JsonProperty public Duration statsSettle = Duration.ofMinutes(2);

  /**
   * Whether the GIN index on job payloads ({@code jobs_payload}, for {@code GET
   * /api/v1/jobs?payload=...}) exists: true builds it (without blocking writers), false drops it.
   * Applied at each partition upkeep ({@code partitionInterval}) and at start.
   */
  @JsonProperty public boolean payloadIndex = false;

  /**
   * Adds every setting that makes no sense to {@code errors}. ({@code rescueAfter} against the
   * workers' heartbeat and lease is checked where both sections are known, in the configuration.)
   */
  @Override
  public void validate(SettingsErrors errors) {
    errors.positive(interval, "reaper.interval");
    errors.positive(rescueAfter, "reaper.rescueAfter");
    errors.positive(deathCheckInterval, "reaper.deathCheckInterval");
    errors.positive(reconcileAfter, "reaper.reconcileAfter");
    errors.positive(partitionInterval, "reaper.partitionInterval");
    errors.positive(workerRetention, "reaper.workerRetention");
    errors.positive(statsInterval, "reaper.statsInterval");
    errors.positive(statsSettle, "reaper.statsSettle");
    // The API keeps what it read of the minutes that ended this long before the rollup's progress.
    errors.require(
        statsSettle == null || statsSettle.compareTo(StatsReader.FINAL_AFTER) <= 0,
        "reaper.statsSettle must be at most " + StatsReader.FINAL_AFTER.toMinutes() + " minutes");
    errors.require(maxPerPass >= 1, "reaper.maxPerPass must be >= 1");
    errors.require(rescuePage >= 1, "reaper.rescuePage must be >= 1");
    errors.require(
        executionRetention != null && executionRetention.toDays() >= 2,
        "reaper.executionRetention must be at least 2 days");
    errors.require(
        auditRetention != null && auditRetention.toDays() >= 1,
        "audit.retention must be at least 1 day");
    errors.require(
        jobRetention != null
            && (executionRetention == null || jobRetention.compareTo(executionRetention) >= 0),
        "reaper.jobRetention must be at least reaper.executionRetention");
  }
}
