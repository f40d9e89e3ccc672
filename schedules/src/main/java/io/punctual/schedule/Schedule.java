package io.punctual.schedule;

import io.punctual.schedule.expression.FireTimes;
import java.time.Instant;
import java.util.UUID;

/**
 * A stored schedule (one row of {@code schedules}).
 *
 * @param nextFireAt the first fire time the planner has not materialised yet (null: none left)
 * @param planAt when a planner looks at it next (null: never)
 * @param lastFireAt the latest fire time materialised
 * @param lastJobId the latest job it created (occurrence or trigger)
 * @param lastFiredAt the latest fire time that has come and became a job (null when none is on
 *     record within {@code planner.occurrenceRetention}); filled in by reads for the API only
 */
public record Schedule(
    UUID id,
    String namespace,
    ScheduleDefinition definition,
    ScheduleStatus status,
    Instant nextFireAt,
    Instant planAt,
    Instant lastFireAt,
    UUID lastJobId,
    Instant createdAt,
    Instant updatedAt,
    Instant lastFiredAt) {

  public FireTimes fireTimes() {
    return definition.fireTimes(createdAt);
  }
}
