package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class JobRetryIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  final Jobs jobs = new Jobs(FIXTURE);

  @Test
  void aFailedJobWithItsAttemptsUsedUpRunsAgainAsANewAttemptAndKeepsItsHistory() {
    String id = jobs.submit("{\"type\":\"noop\",\"maxAttempts\":1}");
    jobs.fail(id);

    Reply reply = retry(id);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("PENDING");
    assertThat(reply.json().get("attempts").asInt()).isEqualTo(1);
    assertThat(reply.json().get("maxAttempts").asInt()).isEqualTo(2);
    assertThat(reply.json().path("finishedAt").asText(null)).isNull();
    assertThat(queued()).contains(id);
    // The new attempt is claimable, numbered 2; the first one stays on record.
    assertThat(jobs.claim(id)).isEqualTo(2);
    Reply executions = FIXTURE.http().get("/api/v1/jobs/" + id + "/executions");
    assertThat(executions.json().get("items")).hasSize(2);
    assertThat(executions.json().get("items").get(0).get("status").asText()).isEqualTo("FAILED");
  }

  @Test
  void aCancelledJobRunsAgain() {
    String id = jobs.submit("{\"type\":\"noop\"}");
    assertThat(FIXTURE.http().post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(200);

    Reply reply = retry(id);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("PENDING");
    assertThat(queued()).contains(id);
    assertThat(jobs.find("default", id).status()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aSkippedJobRunsWithoutWaitingAgainAndItsUpstreamStaysFailed() {
    String upstream = jobs.submit("{\"type\":\"noop\",\"maxAttempts\":1}");
    String downstream = jobs.submit("{\"type\":\"noop\",\"dependsOn\":[\"" + upstream + "\"]}");
    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.BLOCKED);
    jobs.fail(upstream);
    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.SKIPPED);

    Reply reply = retry(downstream);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("status").asText()).isEqualTo("PENDING");
    assertThat(queued()).contains(downstream);
    assertThat(jobs.find("default", upstream).status()).isEqualTo(JobState.FAILED);
  }

  @Test
  void retryingAJobWhoseDependentWasSkippedLeavesTheDependentSkipped() {
    String upstream = jobs.submit("{\"type\":\"noop\",\"maxAttempts\":1}");
    String downstream = jobs.submit("{\"type\":\"noop\",\"dependsOn\":[\"" + upstream + "\"]}");
    jobs.fail(upstream);

    assertThat(retry(upstream).status()).isEqualTo(200);
    jobs.succeed(upstream);

    assertThat(jobs.find("default", upstream).status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.SKIPPED);
  }

  @Test
  void aRetriedJobThatEndsAgainReleasesADependentStillWaiting() {
    String upstream = jobs.submit("{\"type\":\"noop\",\"maxAttempts\":1}");
    String other = jobs.submit("{\"type\":\"noop\"}");
    String downstream =
        jobs.submit(
            "{\"type\":\"noop\",\"dependsOn\":[{\"id\":\""
                + upstream
                + "\",\"required\":false},\""
                + other
                + "\"]}");
    jobs.fail(upstream); // optional: the dependent still waits for the other one
    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.BLOCKED);

    assertThat(retry(upstream).status()).isEqualTo(200);
    jobs.succeed(upstream); // its second end is counted again: the count is checked in full at 0
    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.BLOCKED);
    jobs.succeed(other);

    assertThat(jobs.find("default", downstream).status()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aJobNotFinalIs409JobNotFinal() {
    String pending = jobs.submit("{\"type\":\"noop\"}");
    String running = jobs.submit("{\"type\":\"noop\"}");
    jobs.claim(running);
    String upstream = jobs.submit("{\"type\":\"noop\"}");
    String blocked = jobs.submit("{\"type\":\"noop\",\"dependsOn\":[\"" + upstream + "\"]}");

    for (String id : List.of(pending, running, blocked)) {
      Reply reply = retry(id);
      assertThat(reply.status()).as(id).isEqualTo(409);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("type").asText()).endsWith("/job-not-final");
    }
    assertThat(jobs.find("default", running).status()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void aSucceededJobIs409JobSucceeded() {
    String id = jobs.submit("{\"type\":\"noop\"}");
    jobs.succeed(id);

    Reply reply = retry(id);

    assertThat(reply.status()).isEqualTo(409);
    assertThat(reply.json().get("type").asText()).endsWith("/job-succeeded");
    assertThat(jobs.find("default", id).status()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void aJobOfAnotherNamespaceIs404AndStaysFailed() {
    String id = jobs.submit("{\"type\":\"noop\",\"maxAttempts\":1}");
    jobs.fail(id);

    Reply reply = FIXTURE.http().namespace("other").post("/api/v1/jobs/" + id + "/retry", "");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    Job job = jobs.find("default", id);
    assertThat(job.status()).isEqualTo(JobState.FAILED);
    assertThat(FIXTURE.http().post("/api/v1/jobs/not-an-id/retry", "").status()).isEqualTo(404);
    assertThat(FIXTURE.http().post("/api/v1/jobs/" + UUID.randomUUID() + "/retry", "").status())
        .isEqualTo(404);
  }

  private static Reply retry(String id) {
    return FIXTURE.http().post("/api/v1/jobs/" + id + "/retry", "");
  }

  private static List<String> queued() {
    return FIXTURE
        .stack
        .redis
        .sync()
        .zrange(FIXTURE.stack.keys.queue("default", Priority.NORMAL), 0, -1);
  }
}
