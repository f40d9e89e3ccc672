package io.punctual.worker.run;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import java.time.Instant;
import java.util.List;

/** Running {@link Job} rows for unit tests that need no database. */
public final class TestJobs {
  private TestJobs() {}

  public static Job running(String type, String payload, int attempt, int maxAttempts) {
    return running(type, Json.readTree(payload), attempt, maxAttempts, Backoff.DEFAULT, null);
  }

  public static Job running(
      String type,
      JsonNode payload,
      int attempt,
      int maxAttempts,
      Backoff backoff,
      JsonNode callback) {
    return running(type, payload, attempt, maxAttempts, backoff, callback, Priority.NORMAL);
  }

  public static Job running(
      String type,
      JsonNode payload,
      int attempt,
      int maxAttempts,
      Backoff backoff,
      JsonNode callback,
      Priority priority) {
    Instant t = Instant.parse("2030-01-01T00:00:00Z");
    return new Job(
        JobId.forScheduledTime(t),
        "default",
        type,
        payload,
        priority,
        JobState.RUNNING,
        t,
        attempt,
        maxAttempts,
        backoff,
        null,
        null,
        List.of(),
        callback,
        null,
        null,
        "w1",
        t,
        t,
        null,
        t,
        t,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  public static Job withAttempt(Job j, int attempt) {
    return new Job(
        j.id(),
        j.namespace(),
        j.type(),
        j.payload(),
        j.priority(),
        j.status(),
        j.runAt(),
        attempt,
        j.maxAttempts(),
        j.backoff(),
        j.timeout(),
        j.idempotencyKey(),
        j.tags(),
        j.callback(),
        j.result(),
        j.lastError(),
        j.workerId(),
        j.heartbeatAt(),
        j.startedAt(),
        j.finishedAt(),
        j.createdAt(),
        j.updatedAt(),
        j.parentId(),
        j.scheduleId(),
        j.workflowId(),
        j.runCondition(),
        j.occurrenceAt(),
        j.traceparent());
  }
}
