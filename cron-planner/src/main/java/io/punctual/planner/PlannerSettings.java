package io.punctual.planner;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.config.SettingsErrors;
import io.punctual.common.config.ValidatedSettings;
import io.punctual.schedule.ScheduleDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the planner materialises schedules (the {@code planner} section of the configuration).
 * Mutable Jackson bean; every field has a default that works.
 */
public class PlannerSettings implements ValidatedSettings {
  /** Longest wait between two passes (a pass also starts as soon as a schedule is due). */
  @JsonProperty public Duration interval = Duration.ofSeconds(1);

  /**
   * How far ahead occurrences are materialised as jobs. A schedule is topped up when its next
   * unmaterialised fire time comes within half of this, up to the whole of it; so a planner outage
   * shorter than half of it goes unnoticed. Longer means more PENDING jobs to cancel when a
   * schedule is changed or paused.
   */
  @JsonProperty public Duration lookAhead = Duration.ofMinutes(1);

  /** Schedules claimed (and planned) in one transaction. */
  @JsonProperty public int batchSize = 500;

  /** Smallest {@code every} a schedule may have. */
  @JsonProperty public Duration minInterval = ScheduleDefinition.DEFAULT_MIN_INTERVAL;

  /**
   * How long every planner must have been silent (all down, or PostgreSQL away) for an outage: fire
   * times not planned yet that came more than this before the planners came back were missed, and
   * the schedule's misfire policy decides. Any other fire time is simply run late, however late a
   * busy planner reaches it. At least twice {@code interval}: an idle planner shows it is alive
   * from its passes (at most every quarter of this).
   */
  @JsonProperty public Duration misfireThreshold = Duration.ofSeconds(10);

  /** Most catch-up runs of one schedule with misfire policy {@code fire_all}. */
  @JsonProperty public int fireAllCap = 100;

  /** How long the record of each materialised fire time is kept (it keeps duplicates out). */
  @JsonProperty public Duration occurrenceRetention = Duration.ofHours(24);

  /**
   * Schedules declared in configuration, upserted by their {@code initIdentifier} when a planner
   * starts: each is a {@code POST /api/v1/schedules} body plus an optional {@code namespace}.
   */
  @JsonProperty public List<ObjectNode> schedules = new ArrayList<>();

  /** Adds every setting that makes no sense to {@code errors}. */
  @Override
  public void validate(SettingsErrors errors) {
    errors.positive(interval, "planner.interval");
    errors.positive(lookAhead, "planner.lookAhead");
    errors.positive(minInterval, "planner.minInterval");
    errors.positive(misfireThreshold, "planner.misfireThreshold");
    errors.positive(occurrenceRetention, "planner.occurrenceRetention");
    errors.require(
        batchSize >= 1 && batchSize <= 10_000, "planner.batchSize must be between 1 and 10000");
    errors.require(
        fireAllCap >= 1 && fireAllCap <= 10_000, "planner.fireAllCap must be between 1 and 10000");
    if (minInterval != null && minInterval.isPositive()) {
      errors.require(
          minInterval.toMillis() >= 1,
          "planner.minInterval must be at least a millisecond (PT0.001S)");
    }
    if (occurrenceRetention != null && lookAhead != null && misfireThreshold != null) {
      errors.require(
          occurrenceRetention.compareTo(lookAhead.plus(misfireThreshold).multipliedBy(2)) >= 0,
          "planner.occurrenceRetention must be at least twice planner.lookAhead +"
              + " planner.misfireThreshold");
    }
    if (misfireThreshold != null && interval != null) {
      errors.require(
          misfireThreshold.compareTo(interval.multipliedBy(2)) >= 0,
          "planner.misfireThreshold must be at least twice planner.interval (a planner shows it"
              + " is alive from its passes; waiting longer between them would look like an"
              + " outage)");
    }
    errors.require(schedules != null, "planner.schedules must be a list (or left out)");
  }
}
