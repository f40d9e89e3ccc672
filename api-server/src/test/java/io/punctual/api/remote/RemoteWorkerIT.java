package io.punctual.api.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.reaper.DeathWatch;
import io.punctual.reaper.Reaper;
import io.punctual.reaper.ReaperSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker protocol end to end on a real API (PostgreSQL, Redis, the worker it runs for each
 * remote worker): register, long-poll claims, heartbeats with progress and logs, completions fenced
 * by the attempt number, cancels in the heartbeat's answer, a silent worker's attempts rescued as
 * lost, and the worker role.
 */
class RemoteWorkerIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private final HttpSupport http = FIXTURE.http();

  private String register(String type, int concurrency) {
    Reply reply =
        http.post(
            "/api/v1/workers",
            "{\"types\":[\"" + type + "\"],\"concurrency\":" + concurrency + "}");
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    assertThat(reply.json().get("heartbeatIntervalMs").asLong()).isEqualTo(5000);
    assertThat(reply.json().get("leaseTtlMs").asLong()).isEqualTo(15000);
    return reply.json().get("id").asText();
  }

  private String submit(String body) {
    return http.post("/api/v1/jobs", body).json().get("id").asText();
  }

  private JsonNode claim(String worker, int max, int waitMs) {
    Reply reply =
        http.post(
            "/api/v1/workers/" + worker + "/claim",
            "{\"max\":" + max + ",\"waitMs\":" + waitMs + "}");
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    return reply.json().get("attempts");
  }

  private Reply complete(String worker, String jobId, int attempt, String rest) {
    return http.post(
        "/api/v1/workers/" + worker + "/complete",
        "{\"jobId\":\"" + jobId + "\",\"attempt\":" + attempt + "," + rest + "}");
  }

  private String status(String jobId) {
    return http.get("/api/v1/jobs/" + jobId).json().get("status").asText();
  }

  /** A claimed attempt's claim is written once it outlives worker.claimWriteAfter (250 ms). */
  private void awaitRunning(String jobId) {
    await().atMost(Duration.ofSeconds(3)).until(() -> status(jobId).equals("RUNNING"));
  }

  private static long meter(String name) {
    return FIXTURE.app.getEnvironment().metrics().meter(name).getCount();
  }

  private long lateReports() {
    return meter("punctual.api.remoteWorkers.lateReports");
  }

  @Test
  void aSucceededCompletionsFollowUpsAreStoredAsTheJobsChildrenAndBadOnesAreNamed() {
    String worker = register("remote.parent", 1);
    String job = submit("{\"type\":\"remote.parent\",\"priority\":\"high\"}");
    assertThat(claim(worker, 1, 10_000)).hasSize(1);
    awaitRunning(job);

    // Refused whole, each bad field named, nothing recorded: the attempt is still held.
    Reply bad =
        complete(
            worker,
            job,
            1,
            "\"status\":\"succeeded\",\"followUps\":[{\"type\":\"a\",\"idempotencyKey\":\"k\"},"
                + "{\"payload\":{}},{\"type\":\"b\",\"idempotencyKey\":\"k\"},"
                + "{\"type\":\"c\",\"parentId\":\""
                + job
                + "\"},7,{\"type\":\"d\",\"delay\":\"P400000D\"}]");
    assertThat(bad.status()).as(bad.raw().body()).isEqualTo(422);
    assertThat(bad.json().get("errors").findValuesAsText("field"))
        .containsExactlyInAnyOrder(
            "followUps[1].type",
            "followUps[2].idempotencyKey",
            "followUps[3].parentId",
            "followUps[4]",
            "followUps[5].delay");
    Reply failedWithFollowUps =
        complete(
            worker,
            job,
            1,
            "\"status\":\"failed\",\"error\":\"x\",\"followUps\":[{\"type\":\"a\"}]");
    assertThat(failedWithFollowUps.status()).isEqualTo(422);
    assertThat(failedWithFollowUps.json().get("errors").findValuesAsText("field"))
        .containsExactly("followUps");
    assertThat(status(job)).isEqualTo("RUNNING");

    Reply done =
        complete(
            worker,
            job,
            1,
            "\"status\":\"succeeded\",\"followUps\":[{\"type\":\"remote.child\","
                + "\"payload\":{\"n\":1},\"tags\":[\"fu\"],\"delay\":\"PT1H\"},"
                + "{\"type\":\"remote.child\",\"priority\":\"low\",\"maxAttempts\":5}]");
    assertThat(done.status()).as(done.raw().body()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("SUCCEEDED"));
    JsonNode children = http.get("/api/v1/jobs/" + job + "/children").json().get("items");
    assertThat(children).hasSize(2);
    for (JsonNode child : children) {
      assertThat(child.get("type").asText()).isEqualTo("remote.child");
      assertThat(child.get("parentId").asText()).isEqualTo(job);
    }
    JsonNode first = children.get(0).get("tags").size() == 1 ? children.get(0) : children.get(1);
    JsonNode second = first == children.get(0) ? children.get(1) : children.get(0);
    assertThat(first.get("payload").get("n").asInt()).isEqualTo(1);
    assertThat(first.get("priority").asText()).as("the spawner's").isEqualTo("high");
    assertThat(second.get("priority").asText()).isEqualTo("low");
    assertThat(second.get("maxAttempts").asInt()).isEqualTo(5);
    http.method("DELETE", "/api/v1/workers/" + worker);
  }

  @Test
  void aRemoteWorkerClaimsReportsAndCompletesAJob() {
    String worker = register("remote.echo", 2);
    assertThat(claim(worker, 2, 0)).isEmpty();
    String job = submit("{\"type\":\"remote.echo\",\"payload\":{\"n\":7}}");

    JsonNode attempts = claim(worker, 2, 10_000);
    assertThat(attempts).hasSize(1);
    JsonNode a = attempts.get(0);
    assertThat(a.get("jobId").asText()).isEqualTo(job);
    assertThat(a.get("attempt").asInt()).isEqualTo(1);
    assertThat(a.get("type").asText()).isEqualTo("remote.echo");
    assertThat(a.get("payload").get("n").asInt()).isEqualTo(7);
    assertThat(a.get("idempotencyKey").asText()).isEqualTo("punctual:" + job);
    awaitRunning(job);

    Reply beat =
        http.post(
            "/api/v1/workers/" + worker + "/heartbeat",
            "{\"attempts\":[{\"jobId\":\""
                + job
                + "\",\"attempt\":1,\"progress\":{\"done\":1,\"total\":2},"
                + "\"logs\":[\"half way\"]}]}");
    assertThat(beat.status()).as(beat.raw().body()).isEqualTo(200);
    assertThat(beat.json().get("stop")).isEmpty();

    Reply done = complete(worker, job, 1, "\"status\":\"succeeded\",\"result\":{\"echo\":7}");
    assertThat(done.status()).as(done.raw().body()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("SUCCEEDED"));
    JsonNode stored = http.get("/api/v1/jobs/" + job).json();
    assertThat(stored.get("result").get("echo").asInt()).isEqualTo(7);
    assertThat(stored.get("workerId").asText()).isEqualTo(worker);
    JsonNode executions = http.get("/api/v1/jobs/" + job + "/executions").json().get("items");
    assertThat(executions).hasSize(1);
    assertThat(executions.get(0).get("workerId").asText()).isEqualTo(worker);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> http.get("/api/v1/jobs/" + job + "/logs").json().get("lines").size() == 1);
    JsonNode lines = http.get("/api/v1/jobs/" + job + "/logs").json().get("lines");
    assertThat(lines.get(0).get("line").asText()).isEqualTo("half way");
    assertThat(http.get("/api/v1/jobs/" + job).json().get("progress").get("percent").asDouble())
        .isEqualTo(50.0);

    // A second completion of the same attempt is refused by the fence, and counted.
    long late = lateReports();
    Reply again = complete(worker, job, 1, "\"status\":\"succeeded\"");
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("type").asText()).endsWith("attempt-not-held");
    assertThat(lateReports()).isEqualTo(late + 1);
    assertThat(http.method("DELETE", "/api/v1/workers/" + worker).status()).isEqualTo(202);
  }

  @Test
  void aRetryableFailureRetriesWithTheJobsBackoffAndAPermanentOneFails() {
    String worker = register("remote.flaky", 4);
    String job =
        submit(
            "{\"type\":\"remote.flaky\",\"maxAttempts\":3,"
                + "\"backoff\":{\"strategy\":\"fixed\",\"delay\":\"PT0.1S\"}}");
    assertThat(claim(worker, 1, 10_000)).hasSize(1);
    assertThat(complete(worker, job, 1, "\"status\":\"failed\",\"error\":\"boom\"").status())
        .isEqualTo(200);
    JsonNode second = claim(worker, 1, 10_000);
    assertThat(second).hasSize(1);
    assertThat(second.get(0).get("attempt").asInt()).isEqualTo(2);
    Reply permanent =
        complete(
            worker, job, 2, "\"status\":\"failed\",\"error\":\"bad input\",\"retryable\":false");
    assertThat(permanent.status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("FAILED"));
    JsonNode executions = http.get("/api/v1/jobs/" + job + "/executions").json().get("items");
    assertThat(executions.get(0).get("error").asText()).isEqualTo("boom");
    assertThat(executions.get(1).get("error").asText()).isEqualTo("bad input");
    http.method("DELETE", "/api/v1/workers/" + worker);
  }

  /** Heartbeats attempt {@code attempt} of {@code job} until the answer lists it to stop. */
  private void awaitStopInHeartbeat(String worker, String job, int attempt) {
    String beat = "{\"attempts\":[{\"jobId\":\"" + job + "\",\"attempt\":" + attempt + "}]}";
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                http.post("/api/v1/workers/" + worker + "/heartbeat", beat)
                        .json()
                        .get("stop")
                        .size()
                    == 1);
  }

  @Test
  void aCancelReachesTheRemoteWorkerInTheHeartbeatsAnswer() {
    String worker = register("remote.long", 1);
    String job = submit("{\"type\":\"remote.long\"}");
    assertThat(claim(worker, 1, 10_000)).hasSize(1);
    assertThat(http.post("/api/v1/jobs/" + job + "/cancel", "").status()).isEqualTo(200);
    awaitStopInHeartbeat(worker, job, 1);
    assertThat(complete(worker, job, 1, "\"status\":\"succeeded\"").status()).isEqualTo(409);
    assertThat(status(job)).isEqualTo("CANCELLED");
    http.method("DELETE", "/api/v1/workers/" + worker);
  }

  @Test
  void anAttemptPastItsTimeoutIsStoppedAndRetriedAsAJavaWorkersWouldBe() {
    String worker = register("remote.slow", 1);
    String job =
        submit(
            "{\"type\":\"remote.slow\",\"timeout\":\"PT0.5S\",\"maxAttempts\":2,"
                + "\"backoff\":{\"strategy\":\"fixed\",\"delay\":\"PT0.1S\"}}");
    JsonNode first = claim(worker, 1, 10_000);
    assertThat(first.get(0).get("deadline").isNull()).isFalse();
    awaitStopInHeartbeat(worker, job, 1);
    assertThat(complete(worker, job, 1, "\"status\":\"succeeded\"").status()).isEqualTo(409);
    JsonNode second = claim(worker, 1, 10_000);
    assertThat(second.get(0).get("attempt").asInt()).isEqualTo(2);
    assertThat(complete(worker, job, 2, "\"status\":\"succeeded\"").status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("SUCCEEDED"));
    JsonNode executions = http.get("/api/v1/jobs/" + job + "/executions").json().get("items");
    assertThat(executions.get(0).get("status").asText()).isEqualTo("TIMED_OUT");
    http.method("DELETE", "/api/v1/workers/" + worker);
  }

  @Test
  void aSilentWorkersAttemptIsRescuedAsLostAndItsLateCompletionRefused() {
    String worker = register("remote.silent", 1);
    String job = submit("{\"type\":\"remote.silent\",\"maxAttempts\":2}");
    assertThat(claim(worker, 1, 10_000)).hasSize(1);
    // Its claim is written once the attempt outlives worker.claimWriteAfter.
    await().atMost(Duration.ofSeconds(3)).until(() -> status(job).equals("RUNNING"));

    // It sends nothing for longer than api.remoteWorkers.leaseTtl: abandoned within a second.
    long abandoned = meter("punctual.api.remoteWorkers.abandoned");
    FIXTURE.clock.advance(Duration.ofSeconds(16));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> meter("punctual.api.remoteWorkers.abandoned") == abandoned + 1);
    assertThat(http.post("/api/v1/workers/" + worker + "/claim", "{}").status()).isEqualTo(404);
    // The death watch (a reaper's, or any worker process's) rescues its attempt once its live-set
    // entry expires (worker.livenessTtl, on the Redis server's clock).
    DeathWatch watch =
        Reaper.deathWatch(FIXTURE.stores, new ReaperSettings(), new MetricRegistry());
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              watch.runOnce();
              return !status(job).equals("RUNNING");
            });
    JsonNode executions = http.get("/api/v1/jobs/" + job + "/executions").json().get("items");
    assertThat(executions.get(0).get("status").asText()).isEqualTo("LOST");
    assertThat(executions.get(0).get("workerId").asText()).isEqualTo(worker);
    assertThat(status(job)).isEqualTo("PENDING");

    // Its completion, sent when it comes back, is refused and counted.
    long late = lateReports();
    assertThat(complete(worker, job, 1, "\"status\":\"succeeded\"").status()).isEqualTo(404);
    assertThat(lateReports()).isEqualTo(late + 1);

    // Another remote worker runs it again, as attempt 2.
    String next = register("remote.silent", 1);
    JsonNode again = claim(next, 1, 10_000);
    assertThat(again.get(0).get("attempt").asInt()).isEqualTo(2);
    assertThat(complete(next, job, 2, "\"status\":\"succeeded\"").status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("SUCCEEDED"));
    http.method("DELETE", "/api/v1/workers/" + next);
  }

  @Test
  void aStoppingWorkersUntakenAttemptsAreHandedBackAtOnce() {
    String worker = register("remote.untaken", 2);
    String job = submit("{\"type\":\"remote.untaken\"}");
    // The API claims it for the worker, which never takes it.
    await().atMost(Duration.ofSeconds(10)).until(() -> status(job).equals("RUNNING"));
    assertThat(http.method("DELETE", "/api/v1/workers/" + worker).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(5)).until(() -> status(job).equals("PENDING"));
    JsonNode executions = http.get("/api/v1/jobs/" + job + "/executions").json().get("items");
    assertThat(executions.get(0).get("status").asText()).isEqualTo("HANDED_BACK");
    assertThat(http.post("/api/v1/workers/" + worker + "/claim", "{}").status()).isEqualTo(404);
  }

  @Test
  void aClaimWaitingInItsLongPollKeepsItsWorkerAlive() throws Exception {
    String worker = register("remote.idle", 1);
    long abandoned = meter("punctual.api.remoteWorkers.abandoned");
    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> http.post("/api/v1/workers/" + worker + "/claim", "{\"waitMs\":3000}").status());
    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
    FIXTURE.clock.advance(Duration.ofSeconds(16)); // past leaseTtl while the claim waits
    assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(meter("punctual.api.remoteWorkers.abandoned")).isEqualTo(abandoned);
    assertThat(claim(worker, 1, 0)).isEmpty();
    http.method("DELETE", "/api/v1/workers/" + worker);
  }

  @Test
  void aWorkerKeyRunsJobsAndNothingElse() {
    Reply key =
        http.post(
            "/api/v1/keys",
            "{\"name\":\"remote-py\",\"role\":\"worker\",\"namespaces\":[\"default\"]}");
    assertThat(key.status()).as(key.raw().body()).isEqualTo(201);
    HttpSupport asWorker = FIXTURE.http().key(key.json().get("secret").asText());
    assertThat(asWorker.get("/api/v1/jobs").status()).isEqualTo(403);
    assertThat(asWorker.post("/api/v1/jobs", "{\"type\":\"x\"}").status()).isEqualTo(403);
    assertThat(asWorker.get("/api/v1/workers").status()).isEqualTo(403);
    Reply registered = asWorker.post("/api/v1/workers", "{\"types\":[\"remote.keyed\"]}");
    assertThat(registered.status()).isEqualTo(201);
    String id = registered.json().get("id").asText();
    assertThat(asWorker.post("/api/v1/workers/" + id + "/claim", "{}").status()).isEqualTo(200);
    // A key acting in another namespace does not reach it.
    assertThat(http.namespace("other").post("/api/v1/workers/" + id + "/claim", "{}").status())
        .isEqualTo(404);
    assertThat(asWorker.method("DELETE", "/api/v1/workers/" + id).status()).isEqualTo(202);
  }

  @Test
  void badBodiesAreRefusedNamingTheField() {
    String[][] cases = {
      {"{}", "types"},
      {"{\"types\":[\"a\",\"a\"]}", "types[1]"},
      {"{\"types\":[\"a\"],\"concurrency\":0}", "concurrency"},
      {"{\"types\":[\"a\"],\"extra\":1}", "extra"},
    };
    for (String[] c : cases) {
      Reply reply = http.post("/api/v1/workers", c[0]);
      assertThat(reply.status()).as(c[0]).isEqualTo(422);
      assertThat(reply.json().toString()).as(c[0]).contains("\"" + c[1] + "\"");
    }
    String worker = register("remote.bad", 2);
    String id = "\"jobId\":\"019a0000-0000-7000-8000-000000000000\",\"attempt\":1";
    String[][] onWorker = {
      {"claim", "{\"max\":3}", "max"},
      {"claim", "{\"waitMs\":-1}", "waitMs"},
      {"heartbeat", "{\"attempts\":[{\"jobId\":\"nope\",\"attempt\":1}]}", "attempts[0].jobId"},
      {
        "heartbeat",
        "{\"attempts\":[{" + id + ",\"progress\":{\"percent\":101}}]}",
        "attempts[0].progress.percent"
      },
      {"complete", "{" + id + ",\"status\":\"done\"}", "status"},
      {"complete", "{" + id + ",\"status\":\"failed\"}", "error"},
    };
    for (String[] c : onWorker) {
      Reply reply = http.post("/api/v1/workers/" + worker + "/" + c[0], c[1]);
      assertThat(reply.status()).as(c[1]).isEqualTo(422);
      assertThat(reply.json().toString()).as(c[1]).contains("\"" + c[2] + "\"");
    }
    http.method("DELETE", "/api/v1/workers/" + worker);
  }
}
