package io.punctual.planner.plan;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What one planning step decided for a schedule: the occurrences to record (in fire-time order),
 * where the schedule's next unmaterialised fire time now is, and when to look at it again.
 *
 * @param misfire whether fire times had been missed (the misfire policy was applied)
 */
public record SchedulePlan(
    UUID scheduleId,
    List<Occurrence> occurrences,
    Instant nextFireAt,
    Instant planAt,
    boolean misfire) {

  public SchedulePlan {
    occurrences = List.copyOf(occurrences);
  }
}
