package io.punctual.common.job;

import java.util.List;
import java.util.UUID;

/**
 * What a job belongs to, besides its namespace, and what it waits for: the schedule that
 * materialised it, the workflow it is a step of, and the jobs it runs after (its parent and its
 * dependencies). Ids are null when they do not apply; {@link #NONE} is a plain job.
 */
public record JobLinks(UUID scheduleId, UUID workflowId, List<Upstream> upstream) {
  public static final JobLinks NONE = new JobLinks(null, null, List.of());

  public JobLinks {
    upstream = upstream == null ? List.of() : List.copyOf(upstream);
    if (upstream.stream().filter(Upstream::parent).count() > 1) {
      throw new IllegalArgumentException("a job has at most one parent");
    }
  }

  public JobLinks withScheduleId(UUID id) {
    return new JobLinks(id, workflowId, upstream);
  }

  public JobLinks withWorkflowId(UUID id) {
    return new JobLinks(scheduleId, id, upstream);
  }

  public JobLinks withUpstream(List<Upstream> edges) {
    return new JobLinks(scheduleId, workflowId, edges);
  }

  /** Whether the job waits for other jobs (and so starts BLOCKED). */
  public boolean waits() {
    return !upstream.isEmpty();
  }

  /** The edge to the parent, or null. */
  public Upstream parent() {
    return upstream.stream().filter(Upstream::parent).findFirst().orElse(null);
  }
}
