package io.punctual.model;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What a job belongs to, besides its namespace, and what it waits for: the schedule that
 * materialised it (and which of its occurrences it is), the workflow it is a step of, and the jobs
 * it runs after (its parent and its dependencies). Ids are null when they do not apply; {@link
 * #NONE} is a plain job. A job a schedule ran on demand ({@code trigger}) has a schedule but no
 * occurrence.
 */
public record JobLinks(
    UUID scheduleId, UUID workflowId, List<Upstream> upstream, Instant occurrenceAt) {
  public static final JobLinks NONE = new JobLinks(null, null, List.of(), null);

  public JobLinks {
    upstream = upstream == null ? List.of() : List.copyOf(upstream);
    int parents = 0;
    for (Upstream u : upstream) { // a loop, not a stream: every submitted job passes here
      parents += u.parent() ? 1 : 0;
    }
    if (parents > 1) {
      throw new IllegalArgumentException("a job has at most one parent");
    }
  }

  public JobLinks(UUID scheduleId, UUID workflowId) {
    this(scheduleId, workflowId, List.of(), null);
  }

  public JobLinks withScheduleId(UUID id) {
    return new JobLinks(id, workflowId, upstream, occurrenceAt);
  }

  public JobLinks withWorkflowId(UUID id) {
    return new JobLinks(scheduleId, id, upstream, occurrenceAt);
  }

  public JobLinks withUpstream(List<Upstream> edges) {
    return new JobLinks(scheduleId, workflowId, edges, occurrenceAt);
  }

  /** The occurrence of schedule {@code id} due at {@code at} (its fire time, not its run time). */
  public JobLinks withOccurrence(UUID id, Instant at) {
    return new JobLinks(id, workflowId, upstream, at);
  }

  /** Whether the job waits for other jobs (and so starts BLOCKED). */
  public boolean waits() {
    return !upstream.isEmpty();
  }

  /** The edge to the parent, or null. */
  public Upstream parent() {
    for (Upstream u : upstream) {
      if (u.parent()) {
        return u;
      }
    }
    return null;
  }
}
