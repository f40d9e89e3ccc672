package io.punctual.common.job;

import java.time.Instant;
import java.util.UUID;

/**
 * What a job belongs to, besides its namespace: the schedule that materialised it (and which of its
 * occurrences it is) and the workflow it is a step of. Each is null when it does not apply; {@link
 * #NONE} is a plain job. A job a schedule ran on demand ({@code trigger}) has a schedule but no
 * occurrence.
 */
public record JobLinks(UUID scheduleId, UUID workflowId, Instant occurrenceAt) {
  public static final JobLinks NONE = new JobLinks(null, null, null);

  public JobLinks(UUID scheduleId, UUID workflowId) {
    this(scheduleId, workflowId, null);
  }

  public JobLinks withScheduleId(UUID id) {
    return new JobLinks(id, workflowId, occurrenceAt);
  }

  public JobLinks withWorkflowId(UUID id) {
    return new JobLinks(scheduleId, id, occurrenceAt);
  }

  /** The occurrence of schedule {@code id} due at {@code at} (its fire time, not its run time). */
  public JobLinks withOccurrence(UUID id, Instant at) {
    return new JobLinks(id, workflowId, at);
  }
}
