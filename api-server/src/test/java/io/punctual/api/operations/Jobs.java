package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Drives jobs of a fixture to the states the operations tests need, through the real store. */
final class Jobs {
  private final ApiFixture fixture;

  Jobs(ApiFixture fixture) {
    this.fixture = fixture;
  }

  /** Submits {@code body} in {@code namespace}; returns the job's id. */
  String submit(HttpSupport http, String body) {
    Reply reply = http.post("/api/v1/jobs", body);
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    return reply.json().get("id").asText();
  }

  String submit(String body) {
    return submit(fixture.http(), body);
  }

  /** Claims the job (attempt + 1) as worker w-1; returns the attempt. */
  int claim(String id) {
    List<Job> claimed = fixture.stack.transitions.claim(List.of(UUID.fromString(id)), "w-1");
    assertThat(claimed).hasSize(1);
    return claimed.get(0).attempt();
  }

  /** Claims the job and ends the attempt in {@code next} (SUCCEEDED or FAILED). */
  void runTo(String id, JobState next, long durationMs) {
    int attempt = claim(id);
    Instant now = fixture.clock.instant();
    Completion c =
        new Completion(
            UUID.fromString(id),
            attempt,
            next,
            null,
            next == JobState.SUCCEEDED ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED,
            now,
            durationMs,
            next == JobState.SUCCEEDED ? null : "boom",
            null,
            null,
            List.of());
    assertThat(fixture.stack.transitions.finish(List.of(c)).applied()).hasSize(1);
  }

  void fail(String id) {
    runTo(id, JobState.FAILED, 5);
  }

  void succeed(String id) {
    runTo(id, JobState.SUCCEEDED, 5);
  }

  Job find(String namespace, String id) {
    return fixture.stack.queries.find(namespace, UUID.fromString(id)).orElseThrow();
  }
}
