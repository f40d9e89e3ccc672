package io.punctual.api.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import io.punctual.store.AttemptOutputs;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * A job as the API shows it. Every field is always present (null when unset), except {@code
 * dependsOn}: the jobs it waits for besides its parent, each {@code {"id", "required",
 * "runCondition"}} (in the order of their ids), shown wherever one job is returned (a submit,
 * {@code GET /jobs/{id}}, a cancel) and left out of list pages (it is one more read of another
 * table per page). {@code scheduleId} and {@code occurrenceAt} name the schedule a job came from
 * and which of its fire times it is. {@code callback.headers} show their names only ({@link
 * CallbackView}). {@code progress} is shown by {@code GET /jobs/{id}} only, once reported.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record JobRepresentation(
    String id,
    String namespace,
    String type,
    String status,
    String priority,
    JsonNode payload,
    Instant runAt,
    int attempts,
    int maxAttempts,
    Backoff backoff,
    Duration timeout,
    String idempotencyKey,
    List<String> tags,
    JsonNode callback,
    JsonNode result,
    String lastError,
    String workerId,
    Instant startedAt,
    Instant finishedAt,
    Instant createdAt,
    Instant updatedAt,
    String parentId,
    String runCondition,
    String workflowId,
    String scheduleId,
    Instant occurrenceAt,
    String traceparent,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<DependencyRepresentation> dependsOn,
    @JsonInclude(JsonInclude.Include.NON_NULL) ProgressRepresentation progress) {

  /**
   * How far the job's latest attempt that reported any progress got ({@code JobContext.progress}):
   * a percentage, and the counts when it reported done of total. Shown by {@code GET /jobs/{id}}
   * once reported.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record ProgressRepresentation(
      int attempt, float percent, Long done, Long total, Instant updatedAt) {
    public static ProgressRepresentation of(AttemptOutputs.AttemptProgress p) {
      return new ProgressRepresentation(
          p.attempt(),
          p.progress().percent(),
          p.progress().done(),
          p.progress().total(),
          p.updatedAt());
    }
  }

  /**
   * A job waited for: {@code required} (it must SUCCEED, run condition {@code on_success}) or not
   * ({@code always}: it only has to end; {@code on_failure}: only a follow-up a handler spawned
   * waits that way).
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record DependencyRepresentation(String id, boolean required, String runCondition) {
    public static List<DependencyRepresentation> of(List<Upstream> dependsOn) {
      if (dependsOn.isEmpty()) {
        return List.of(); // most jobs: no stream to build per answer
      }
      return dependsOn.stream()
          .sorted(Comparator.comparing(u -> u.jobId().toString()))
          .map(
              u ->
                  new DependencyRepresentation(
                      u.jobId().toString(),
                      u.condition() == RunCondition.ON_SUCCESS,
                      u.condition().wireName()))
          .toList();
    }
  }

  /** A job without its {@code dependsOn} (list pages). */
  public static JobRepresentation of(Job job) {
    return of(job, null);
  }

  /** A job with its {@code dependsOn} ({@link io.punctual.store.JobQueries#dependsOn}). */
  public static JobRepresentation of(Job job, List<Upstream> dependsOn) {
    return of(job, dependsOn, null);
  }

  /** A job with its {@code dependsOn} and its latest progress (null: none reported). */
  public static JobRepresentation of(
      Job job, List<Upstream> dependsOn, AttemptOutputs.AttemptProgress progress) {
    return new JobRepresentation(
        job.id().toString(),
        job.namespace(),
        job.type(),
        job.status().name(),
        job.priority().wireName(),
        job.payload(),
        job.runAt(),
        job.attempt(),
        job.maxAttempts(),
        job.backoff(),
        job.timeout(),
        job.idempotencyKey(),
        job.tags(),
        CallbackView.of(job.callback()),
        job.result(),
        job.lastError(),
        job.workerId(),
        job.startedAt(),
        job.finishedAt(),
        job.createdAt(),
        job.updatedAt(),
        job.parentId() == null ? null : job.parentId().toString(),
        job.runCondition() == null ? null : job.runCondition().wireName(),
        job.workflowId() == null ? null : job.workflowId().toString(),
        job.scheduleId() == null ? null : job.scheduleId().toString(),
        job.occurrenceAt(),
        job.traceparent(),
        dependsOn == null ? null : DependencyRepresentation.of(dependsOn),
        progress == null ? null : ProgressRepresentation.of(progress));
  }
}
