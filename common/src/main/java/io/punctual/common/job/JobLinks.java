package io.punctual.common.job;

import java.util.UUID;

/**
 * What a job belongs to, besides its namespace: the schedule that materialised it and the workflow
 * it is a step of. Each is null when it does not apply; {@link #NONE} is a plain job.
 */
public record JobLinks(UUID scheduleId, UUID workflowId) {
  public static final JobLinks NONE = new JobLinks(null, null);

  public JobLinks withScheduleId(UUID id) {
    return new JobLinks(id, workflowId);
  }

  public JobLinks withWorkflowId(UUID id) {
    return new JobLinks(scheduleId, id);
  }
}
