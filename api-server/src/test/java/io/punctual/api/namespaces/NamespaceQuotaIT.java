package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Quotas on the submit path, through the fast path and through Jersey alike: the rate (a burst,
 * then 429 with Retry-After and RateLimit headers), pending jobs, payload size; a batch over a
 * quota stores nothing. The API's clock stands still unless a test moves it, so the token bucket
 * refills only when told to.
 */
class NamespaceQuotaIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void aBurstIsAdmittedThenRefusedWith429RetryAfterAndRateLimitHeaders() {
    create("bursty", "{\"submitsPerSecond\":2,\"burst\":4}");
    HttpSupport bursty = FIXTURE.http().namespace("bursty");
    HttpSupport neighbour = FIXTURE.http().namespace("neighbour");

    List<UUID> admitted = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Reply reply =
          i % 2 == 0
              ? bursty.post("/api/v1/jobs", "{\"type\":\"t\"}")
              : bursty.send(NamespacesIT.jerseySubmit(bursty, "{\"type\":\"t\"}"));
      assertThat(reply.status()).as("submit %d", i).isEqualTo(201);
      admitted.add(UUID.fromString(reply.json().get("id").asText()));
    }
    int stored = NamespacesIT.jobsIn(FIXTURE, "bursty");

    Reply fast = bursty.post("/api/v1/jobs", "{\"type\":\"t\"}");
    Reply jersey = bursty.send(NamespacesIT.jerseySubmit(bursty, "{\"type\":\"t\"}"));

    for (Reply refused : List.of(fast, jersey)) {
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      assertThat(refused.json().get("type").asText()).endsWith("/rate-quota-exceeded");
      assertThat(refused.json().get("field").asText()).isEqualTo("quota.submitsPerSecond");
      assertThat(refused.header("Retry-After")).hasValue("1");
      assertThat(refused.header("RateLimit-Policy")).hasValue("\"submits\";q=4;w=2");
      assertThat(refused.header("RateLimit")).hasValue("\"submits\";r=0;t=1");
    }
    assertThat(NamespacesIT.jobsIn(FIXTURE, "bursty")).isEqualTo(stored);

    // Jobs within the quota are stored and queued as any others; other namespaces are untouched.
    assertThat(FIXTURE.stack.queries.findMany(admitted)).hasSize(4);
    assertThat(queued("bursty")).containsAll(admitted.stream().map(UUID::toString).toList());
    for (int i = 0; i < 10; i++) {
      assertThat(neighbour.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    }

    // Half a second refills one token (2 a second): one more submit, then refused again.
    FIXTURE.clock.advance(Duration.ofMillis(500));
    assertThat(bursty.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    assertThat(bursty.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(429);
  }

  /**
   * An admitted submit into a namespace with a rate quota says what is left of the bucket after it
   * ({@code r}) and when the bucket is full again ({@code t}, whole seconds rounded up), on every
   * submit path; a namespace without a rate quota gets no such headers.
   */
  @Test
  void admittedSubmitsCarryTheTokensLeftInRateLimitHeaders() {
    create("metered", "{\"submitsPerSecond\":2,\"burst\":8}");
    HttpSupport http = FIXTURE.http().namespace("metered");
    String schedule =
        http.post("/api/v1/schedules", "{\"name\":\"s\",\"every\":\"PT1H\",\"type\":\"t\"}")
            .json()
            .get("id")
            .asText();

    Reply fast = http.post("/api/v1/jobs", "{\"type\":\"t\"}"); // 7 left, 0.5 s to full
    Reply jersey = http.send(NamespacesIT.jerseySubmit(http, "{\"type\":\"t\"}")); // 6, 1 s
    Reply batch = http.post("/api/v1/jobs/batch", batch(2)); // 4 left, 2 s to full
    Reply workflow =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"},{\"ref\":\"b\",\"type\":\"t\"}]}"); // 2, 3 s
    Reply trigger = http.post("/api/v1/schedules/" + schedule + "/trigger", ""); // 1, 3.5 s

    List<Reply> replies = List.of(fast, jersey, batch, workflow, trigger);
    List<String> expected =
        List.of(
            "\"submits\";r=7;t=1",
            "\"submits\";r=6;t=1",
            "\"submits\";r=4;t=2",
            "\"submits\";r=2;t=3",
            "\"submits\";r=1;t=4");
    for (int i = 0; i < replies.size(); i++) {
      Reply reply = replies.get(i);
      assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
      assertThat(reply.header("RateLimit-Policy"))
          .as("reply %d", i)
          .hasValue("\"submits\";q=8;w=4");
      assertThat(reply.header("RateLimit")).as("reply %d", i).hasValue(expected.get(i));
    }

    // A namespace without a rate quota pays no bucket, and says nothing of one.
    create("unmetered", "{\"maxPending\":100}");
    HttpSupport free = FIXTURE.http().namespace("unmetered");
    for (Reply reply :
        List.of(
            free.post("/api/v1/jobs", "{\"type\":\"t\"}"),
            free.send(NamespacesIT.jerseySubmit(free, "{\"type\":\"t\"}")),
            free.post("/api/v1/jobs/batch", batch(2)))) {
      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.header("RateLimit")).isEmpty();
      assertThat(reply.header("RateLimit-Policy")).isEmpty();
    }
  }

  @Test
  void aBatchOverTheRateIsRefusedWhole() {
    create("batch-rate", "{\"submitsPerSecond\":1,\"burst\":3}");
    HttpSupport http = FIXTURE.http().namespace("batch-rate");
    assertThat(http.post("/api/v1/jobs/batch", batch(2)).status()).isEqualTo(201);

    Reply refused = http.post("/api/v1/jobs/batch", batch(2)); // one token left, two asked

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.header("Retry-After")).hasValue("1");
    assertThat(refused.header("RateLimit")).hasValue("\"submits\";r=1;t=1");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "batch-rate")).isEqualTo(2);
    // The refused batch took nothing: the one token left still admits a single submit.
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);

    Reply never = http.post("/api/v1/jobs/batch", batch(4)); // larger than the burst
    assertThat(never.status()).isEqualTo(413);
    assertThat(never.json().get("field").asText()).isEqualTo("jobs");
  }

  @Test
  void pendingJobsAtMostThenRefusedWhole() {
    create("bounded", "{\"maxPending\":3}");
    HttpSupport http = FIXTURE.http().namespace("bounded");
    assertThat(http.post("/api/v1/jobs/batch", batch(2)).status()).isEqualTo(201);

    Reply batch = http.post("/api/v1/jobs/batch", batch(2));
    assertThat(batch.status()).isEqualTo(429);
    assertThat(batch.json().get("type").asText()).endsWith("/pending-quota-exceeded");
    assertThat(batch.json().get("field").asText()).isEqualTo("quota.maxPending");
    assertThat(batch.header("Retry-After")).hasValue("1");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "bounded")).isEqualTo(2);

    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    Reply fast = http.post("/api/v1/jobs", "{\"type\":\"t\"}");
    Reply jersey = http.send(NamespacesIT.jerseySubmit(http, "{\"type\":\"t\"}"));
    assertThat(fast.status()).isEqualTo(429);
    assertThat(jersey.status()).isEqualTo(429);
    assertThat(fast.json().get("detail")).isEqualTo(jersey.json().get("detail"));
    assertThat(NamespacesIT.jobsIn(FIXTURE, "bounded")).isEqualTo(3);

    Reply never = http.post("/api/v1/jobs/batch", batch(4));
    assertThat(never.status()).isEqualTo(413);
    assertThat(never.json().get("field").asText()).isEqualTo("jobs");
  }

  @Test
  void aWorkflowOverAQuotaIsRefusedWhole() {
    create("flows", "{\"maxPending\":2,\"maxPayloadBytes\":16}");
    HttpSupport http = FIXTURE.http().namespace("flows");

    Reply tooMany =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"},{\"ref\":\"b\",\"type\":\"t\"},"
                + "{\"ref\":\"c\",\"type\":\"t\",\"dependsOn\":[{\"ref\":\"a\"}]}]}");
    Reply tooBig =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"},"
                + "{\"ref\":\"b\",\"type\":\"t\",\"payload\":{\"text\":\"more than sixteen\"}}]}");

    assertThat(tooMany.status()).isEqualTo(413);
    assertThat(tooMany.json().get("field").asText()).isEqualTo("jobs");
    assertThat(tooBig.status()).isEqualTo(413);
    assertThat(tooBig.json().get("field").asText()).isEqualTo("jobs[1].payload");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "flows")).isZero();
    Reply fits =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"},{\"ref\":\"b\",\"type\":\"t\"}]}");
    assertThat(fits.status()).isEqualTo(201);
    Reply full = http.post("/api/v1/workflows", "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"}]}");
    assertThat(full.status()).isEqualTo(429);
    assertThat(full.json().get("type").asText()).endsWith("/pending-quota-exceeded");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "flows")).isEqualTo(2);
  }

  @Test
  void aNewMaxPendingCountsTheJobsAlreadyPendingAtOnce() {
    HttpSupport http = FIXTURE.http().namespace("later-bounded");
    assertThat(http.post("/api/v1/jobs/batch", batch(3)).status()).isEqualTo(201);

    FIXTURE.http().put("/api/v1/namespaces/later-bounded/quota", "{\"maxPending\":3}");

    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(429);
  }

  @Test
  void theNextReadOfTheNamespacesCountsPendingJobsAgain() {
    create("drained", "{\"maxPending\":1}");
    HttpSupport http = FIXTURE.http().namespace("drained");
    String id = http.post("/api/v1/jobs", "{\"type\":\"t\"}").json().get("id").asText();
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(429);

    assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(200);
    cache().runOnce(); // what the refresh thread does every api.namespaceRefresh

    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
  }

  /**
   * A read of the namespaces that counts while admitted jobs are still being stored does not forget
   * them (a workflow admitted over the quota once, when the refresh thread read between a submit's
   * admission and its commit).
   */
  @Test
  void jobsAdmittedWhileTheNamespacesAreReadStillCountAgainstMaxPending() {
    create("in-flight", "{\"maxPending\":2}");
    HttpSupport http = FIXTURE.http().namespace("in-flight");
    // The API's own cache behind a gate of the test's (no rate quota here: no limiter needed).
    NamespaceGate gate = new NamespaceGate(cache(), null, new MetricRegistry());
    NamespaceGate.Admission admitted =
        gate.admit("in-flight", 2, i -> null, i -> "", new RateHeaders());

    cache().runOnce(); // the refresh thread, counting before the two are committed

    Reply full = http.post("/api/v1/jobs", "{\"type\":\"t\"}");
    assertThat(full.status()).isEqualTo(429);
    assertThat(full.json().get("field").asText()).isEqualTo("quota.maxPending");
    // The request ended without storing them: the next read counts what is there.
    admitted.close();
    cache().runOnce();
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
  }

  /** The same for a bulk retry's batch, admitted before it is written (RetryQuotaIT once saw 4). */
  @Test
  void aBulkRetryBatchAdmittedWhileTheNamespacesAreReadStillCounts() {
    create("bulk-in-flight", "{\"maxPending\":3}");
    NamespaceGate gate = new NamespaceGate(cache(), null, new MetricRegistry());
    NamespaceGate.Room first = gate.roomFor("bulk-in-flight", 2);
    assertThat(first)
        .isInstanceOfSatisfying(
            NamespaceGate.Room.Take.class, t -> assertThat(t.jobs()).isEqualTo(2));

    cache().runOnce(); // counting before the batch is written

    NamespaceGate.Room second = gate.roomFor("bulk-in-flight", 5);
    assertThat(second)
        .isInstanceOfSatisfying(
            NamespaceGate.Room.Take.class, t -> assertThat(t.jobs()).isEqualTo(1));
    ((NamespaceGate.Room.Take) first).admission().close();
    ((NamespaceGate.Room.Take) second).admission().close();
  }

  @Test
  void aPayloadOverTheNamespaceCapIs413NamingIt() {
    create("small", "{\"maxPayloadBytes\":16}");
    HttpSupport http = FIXTURE.http().namespace("small");
    String big = "{\"type\":\"t\",\"payload\":{\"text\":\"more than sixteen bytes\"}}";

    Reply fast = http.post("/api/v1/jobs", big);
    Reply jersey = http.send(NamespacesIT.jerseySubmit(http, big));
    Reply batch = http.post("/api/v1/jobs/batch", "{\"jobs\":[{\"type\":\"t\"}," + big + "]}");

    for (Reply refused : List.of(fast, jersey)) {
      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      assertThat(refused.json().get("field").asText()).isEqualTo("payload");
    }
    assertThat(batch.status()).isEqualTo(413);
    assertThat(batch.json().get("field").asText()).isEqualTo("jobs[1].payload");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "small")).isZero();
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\",\"payload\":{\"a\":1}}").status())
        .isEqualTo(201);
  }

  @Test
  void aQuotaChangeAppliesAtOnce() {
    create("changing", "{\"submitsPerSecond\":1,\"burst\":1}");
    HttpSupport http = FIXTURE.http().namespace("changing");
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(429);

    FIXTURE.http().put("/api/v1/namespaces/changing/quota", "{}");

    for (int i = 0; i < 5; i++) {
      assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    }
  }

  /** The running API's namespace cache (a managed object of its lifecycle). */
  private static NamespaceCache cache() {
    return FIXTURE.managed(NamespaceCache.class);
  }

  @Test
  void aJobsOwnTimeoutAboveTheNamespacesMaxTimeoutIsRefusedNamingItOnEverySubmitPath() {
    create("short", "{\"maxTimeout\":\"PT1M\"}");
    HttpSupport http = FIXTURE.http().namespace("short");
    int stored = NamespacesIT.jobsIn(FIXTURE, "short");

    Reply fast = http.post("/api/v1/jobs", "{\"type\":\"t\",\"timeout\":\"PT2M\"}");
    Reply jersey =
        http.send(NamespacesIT.jerseySubmit(http, "{\"type\":\"t\",\"timeout\":\"PT2M\"}"));
    Reply batch =
        http.post(
            "/api/v1/jobs/batch",
            "{\"jobs\":[{\"type\":\"t\"},{\"type\":\"t\",\"timeout\":\"PT61S\"}]}");
    Reply workflow =
        http.post(
            "/api/v1/workflows",
            "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\",\"timeout\":\"PT1H\"}]}");
    for (Reply refused : List.of(fast, jersey)) {
      assertThat(refused.status()).as(refused.raw().body()).isEqualTo(422);
      assertThat(refused.json().get("field").asText()).isEqualTo("timeout");
      assertThat(refused.raw().body()).contains("PT1M");
    }
    assertThat(batch.status()).as(batch.raw().body()).isEqualTo(422);
    assertThat(batch.json().get("field").asText()).isEqualTo("jobs[1].timeout");
    assertThat(workflow.status()).as(workflow.raw().body()).isEqualTo(422);
    assertThat(workflow.json().get("field").asText()).isEqualTo("jobs[0].timeout");
    assertThat(NamespacesIT.jobsIn(FIXTURE, "short")).isEqualTo(stored);

    // at the cap, or without a timeout of its own (the worker caps it then), a job is taken
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\",\"timeout\":\"PT1M\"}").status())
        .isEqualTo(201);
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
  }

  private static void create(String name, String quota) {
    Reply reply =
        FIXTURE
            .http()
            .post("/api/v1/namespaces", "{\"name\":\"" + name + "\",\"quota\":" + quota + "}");
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
  }

  private static String batch(int n) {
    StringBuilder jobs = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < n; i++) {
      jobs.append(i == 0 ? "" : ",").append("{\"type\":\"t\"}");
    }
    return jobs.append("]}").toString();
  }

  private static List<String> queued(String namespace) {
    return FIXTURE
        .stack
        .redis
        .sync()
        .zrange(FIXTURE.stack.keys.queue(namespace, Priority.NORMAL), 0, -1);
  }
}
