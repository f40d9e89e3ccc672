package io.punctual.api.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.punctual.model.Execution;
import java.time.Instant;

/** One attempt of a job as the API shows it. */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ExecutionRepresentation(
    int attempt,
    String status,
    String workerId,
    Instant startedAt,
    Instant finishedAt,
    Long durationMs,
    String error) {

  public static ExecutionRepresentation of(Execution execution) {
    return new ExecutionRepresentation(
        execution.attempt(),
        execution.status().name(),
        execution.workerId(),
        execution.startedAt(),
        execution.finishedAt(),
        execution.durationMs(),
        execution.error());
  }
}
