package io.punctual.api.workflows;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.api.jobs.JobRepresentation.DependencyRepresentation;
import io.punctual.model.Job;
import io.punctual.store.WorkflowStore.Step;
import io.punctual.store.WorkflowStore.Workflow;
import java.time.Instant;
import java.util.List;

/**
 * A workflow as the API shows it: its overall status and each step (ref, job id, state; the reason
 * of a SKIPPED or FAILED step in {@code lastError}; what it waits for: {@code parentId}, {@code
 * runCondition}, {@code dependsOn}). Steps include the follow-ups a step's handler spawned (ref
 * {@code "<spawner's ref>.spawn[<index>]"}). Full job detail is at {@code /api/v1/jobs/{id}}.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record WorkflowRepresentation(
    String id,
    String namespace,
    String status,
    Instant createdAt,
    Instant cancelledAt,
    List<StepRepresentation> jobs) {

  public record StepRepresentation(
      String ref,
      String id,
      String type,
      String status,
      String parentId,
      String runCondition,
      List<DependencyRepresentation> dependsOn,
      int attempts,
      String lastError,
      Instant startedAt,
      Instant finishedAt) {

    static StepRepresentation of(Step step) {
      Job job = step.job();
      return new StepRepresentation(
          step.ref(),
          job.id().toString(),
          job.type(),
          job.status().name(),
          job.parentId() == null ? null : job.parentId().toString(),
          job.runCondition() == null ? null : job.runCondition().wireName(),
          DependencyRepresentation.of(step.dependsOn()),
          job.attempt(),
          job.lastError(),
          job.startedAt(),
          job.finishedAt());
    }
  }

  public static WorkflowRepresentation of(Workflow w) {
    return new WorkflowRepresentation(
        w.id().toString(),
        w.namespace(),
        w.status().name(),
        w.createdAt(),
        w.cancelledAt(),
        w.steps().stream().map(StepRepresentation::of).toList());
  }
}
