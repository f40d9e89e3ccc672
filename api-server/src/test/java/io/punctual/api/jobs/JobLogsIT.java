package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Progress;
import io.punctual.store.AttemptOutputs;
import io.punctual.store.AttemptOutputs.LogReport;
import io.punctual.store.AttemptOutputs.ProgressReport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** GET /jobs/{id}'s progress and GET /jobs/{id}/logs, over what a worker stored. */
class JobLogsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private final AttemptOutputs outputs = new AttemptOutputs(FIXTURE.stores.database().jdbi());

  private UUID runningJob() {
    String id =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"report\"}").json().get("id").asText();
    UUID jobId = UUID.fromString(id);
    FIXTURE.stack.transitions.claim(List.of(jobId), "worker-a");
    return jobId;
  }

  private void logLines(UUID jobId, int attempt, int from, int to) {
    Instant at = FIXTURE.clock.instant();
    List<LogReport> lines = new ArrayList<>();
    for (int seq = from; seq <= to; seq++) {
      lines.add(new LogReport(jobId, attempt, "default", seq, "line " + seq, at));
    }
    outputs.write(List.of(), lines);
  }

  @Test
  void aJobShowsItsLatestProgress() {
    UUID jobId = runningJob();
    assertThat(FIXTURE.http().get("/api/v1/jobs/" + jobId).json().has("progress")).isFalse();

    Instant at = FIXTURE.clock.instant();
    outputs.write(
        List.of(new ProgressReport(jobId, 1, "default", Progress.of(30, 120), at)), List.of());
    JsonNode progress = FIXTURE.http().get("/api/v1/jobs/" + jobId).json().get("progress");
    assertThat(progress.get("attempt").asInt()).isEqualTo(1);
    assertThat(progress.get("percent").asDouble()).isEqualTo(25.0);
    assertThat(progress.get("done").asLong()).isEqualTo(30);
    assertThat(progress.get("total").asLong()).isEqualTo(120);
    assertThat(progress.get("updatedAt").asText()).isEqualTo(at.toString());

    // An older report changes nothing; a newer one replaces it.
    outputs.write(
        List.of(new ProgressReport(jobId, 1, "default", Progress.percent(5), at.minusSeconds(1))),
        List.of());
    assertThat(
            FIXTURE
                .http()
                .get("/api/v1/jobs/" + jobId)
                .json()
                .get("progress")
                .get("percent")
                .asDouble())
        .isEqualTo(25.0);
    outputs.write(
        List.of(new ProgressReport(jobId, 1, "default", Progress.percent(90), at.plusSeconds(1))),
        List.of());
    JsonNode later = FIXTURE.http().get("/api/v1/jobs/" + jobId).json().get("progress");
    assertThat(later.get("percent").asDouble()).isEqualTo(90.0);
    assertThat(later.get("done").isNull()).isTrue();
  }

  @Test
  void logsArePagedFromAfterInOrderForTheLatestAttemptByDefault() {
    UUID jobId = runningJob();
    Reply none = FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs");
    assertThat(none.status()).isEqualTo(200);
    assertThat(none.json().get("attempt").asInt()).isEqualTo(1);
    assertThat(none.json().get("lines")).isEmpty();
    assertThat(none.json().get("next").asInt()).isZero();

    logLines(jobId, 1, 1, 5);
    logLines(jobId, 1, 3, 3); // written twice (a retried batch): kept once
    JsonNode page = FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs?limit=3").json();
    assertThat(page.get("attempt").asInt()).isEqualTo(1);
    assertThat(page.get("lines")).hasSize(3);
    assertThat(page.get("lines").get(0).get("seq").asInt()).isEqualTo(1);
    assertThat(page.get("lines").get(0).get("line").asText()).isEqualTo("line 1");
    assertThat(page.get("lines").get(0).get("at").asText()).isNotBlank();
    assertThat(page.get("next").asInt()).isEqualTo(3);
    JsonNode rest = FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs?after=3").json();
    assertThat(rest.get("lines")).extracting(n -> n.get("seq").asInt()).containsExactly(4, 5);
    assertThat(rest.get("next").asInt()).isEqualTo(5);
    JsonNode caughtUp = FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs?after=5").json();
    assertThat(caughtUp.get("lines")).isEmpty();
    assertThat(caughtUp.get("next").asInt()).isEqualTo(5);

    logLines(jobId, 2, 1, 2);
    assertThat(FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs").json().get("attempt").asInt())
        .isEqualTo(2);
    assertThat(FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs?attempt=1").json().get("lines"))
        .hasSize(5);
  }

  @Test
  void aJobNeverRunHasNoAttemptToShow() {
    String id =
        FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"idle\"}").json().get("id").asText();
    JsonNode page = FIXTURE.http().get("/api/v1/jobs/" + id + "/logs").json();
    assertThat(page.get("attempt").isNull()).isTrue();
    assertThat(page.get("lines")).isEmpty();
  }

  @Test
  void badParametersAreRefusedNamingTheField() {
    UUID jobId = runningJob();
    for (String[] bad :
        new String[][] {
          {"attempt=0", "attempt"},
          {"attempt=x", "attempt"},
          {"after=-1", "after"},
          {"limit=0", "limit"},
          {"limit=1001", "limit"}
        }) {
      Reply reply = FIXTURE.http().get("/api/v1/jobs/" + jobId + "/logs?" + bad[0]);
      assertThat(reply.status()).as(bad[0]).isEqualTo(400);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().toString()).as(bad[0]).contains("\"" + bad[1] + "\"");
    }
    Reply unknown = FIXTURE.http().get("/api/v1/jobs/019a0000-0000-7000-8000-000000000000/logs");
    assertThat(unknown.status()).isEqualTo(404);
  }
}
