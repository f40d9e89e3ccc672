package io.punctual.schedule;

import io.punctual.schedule.expression.BoundedFireTimes;
import io.punctual.schedule.expression.CronExpression;
import io.punctual.schedule.expression.CronFireTimes;
import io.punctual.schedule.expression.DstPolicy;
import io.punctual.schedule.expression.FireTimes;
import io.punctual.schedule.expression.IntervalFireTimes;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A schedule as its owner defines it, validated: its name (unique in its namespace), the optional
 * static-registration key, when it fires ({@code cron} or {@code every}, exactly one, in {@code
 * zone} with {@code dst}, from {@code startAt} through {@code endAt}, both optional and inclusive),
 * what it does with missed and overlapping runs, and the job each occurrence becomes.
 */
public record ScheduleDefinition(
    String name,
    String initIdentifier,
    String cron,
    Duration every,
    ZoneId zone,
    DstPolicy dst,
    Instant startAt,
    Instant endAt,
    MisfirePolicy misfire,
    OverlapPolicy overlap,
    JobTemplate job) {

  /** The default of {@code planner.minInterval}, the smallest {@code every} a schedule may have. */
  public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(1);

  public ScheduleDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(dst, "dst");
    Objects.requireNonNull(misfire, "misfire");
    Objects.requireNonNull(overlap, "overlap");
    Objects.requireNonNull(job, "job");
    if ((cron == null) == (every == null)) {
      throw new IllegalArgumentException("exactly one of cron and every");
    }
    if (every != null && (!every.isPositive() || every.toMillis() < 1)) {
      throw new IllegalArgumentException("every must be at least a millisecond");
    }
    if (startAt != null && endAt != null && !endAt.isAfter(startAt)) {
      throw new IllegalArgumentException("endAt must be after startAt");
    }
    startAt = startAt == null ? null : startAt.truncatedTo(ChronoUnit.MILLIS);
    endAt = endAt == null ? null : endAt.truncatedTo(ChronoUnit.MILLIS);
  }

  /**
   * The fire times. An interval counts from {@code startAt}, or without one from the creation time
   * rounded up to the next whole second (so a schedule's phase never moves once created).
   */
  public FireTimes fireTimes(Instant createdAt) {
    return fireTimes(cron, every, zone, dst, startAt, endAt, createdAt);
  }

  /** The fire times of a timing alone (for checks made before a whole definition exists). */
  public static FireTimes fireTimes(
      String cron,
      Duration every,
      ZoneId zone,
      DstPolicy dst,
      Instant startAt,
      Instant endAt,
      Instant createdAt) {
    FireTimes times =
        cron != null
            ? new CronFireTimes(CronExpression.cached(cron), zone, dst)
            : new IntervalFireTimes(intervalAnchor(startAt, createdAt), every);
    return startAt == null && endAt == null ? times : new BoundedFireTimes(times, startAt, endAt);
  }

  private static Instant intervalAnchor(Instant startAt, Instant createdAt) {
    if (startAt != null) {
      return startAt;
    }
    Instant floor = createdAt.truncatedTo(ChronoUnit.SECONDS);
    return floor.equals(createdAt) ? floor : floor.plusSeconds(1);
  }
}
