package io.punctual.client;

import java.time.Instant;
import java.util.List;

/**
 * A workflow as the API reports it: {@code status} is RUNNING while a step is not final, then
 * FAILED if a step FAILED, else SUCCEEDED; CANCELLED once cancelled.
 */
public record WorkflowView(
    String id,
    String namespace,
    String status,
    Instant createdAt,
    Instant cancelledAt,
    List<Step> jobs) {

  public WorkflowView {
    jobs = jobs == null ? List.of() : List.copyOf(jobs);
  }

  /**
   * One step: its ref, its job, what it waits for and the job's state now. A follow-up a step's
   * handler spawned is a step too, with the ref {@code "<spawner's ref>.spawn[<index>]"}.
   */
  public record Step(
      String ref,
      String id,
      String type,
      JobStatus status,
      String parentId,
      RunCondition runCondition,
      List<DependencyView> dependsOn,
      int attempts,
      String lastError,
      Instant startedAt,
      Instant finishedAt) {
    public Step {
      dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
    }
  }

  /** The step with this ref. */
  public Step step(String ref) {
    return jobs.stream()
        .filter(s -> s.ref().equals(ref))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no step " + ref));
  }
}
