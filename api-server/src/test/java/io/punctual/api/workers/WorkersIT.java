package io.punctual.api.workers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.model.Job;
import io.punctual.store.registry.WorkerRegistry.Registration;
import io.punctual.store.testing.Jobs;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WorkersIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void listsTheWorkersOfTheNamespaceWithTheirRunningJobsAndLiveness() {
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-busy", "host-a", 11, List.of("default", "reports"), 8, Duration.ofSeconds(10)));
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-other", "host-b", 12, List.of("reports"), 8, Duration.ofSeconds(10)));
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-silent", "host-c", 13, List.of("default"), 8, Duration.ofSeconds(1)));
    Job job =
        FIXTURE
            .stores
            .submissions()
            .submit(List.of(Jobs.aJob().type("report").runAt(FIXTURE.clock.instant()).build()))
            .get(0)
            .job();
    FIXTURE.stores.transitions().claim(List.of(job.id()), "w-busy");
    FIXTURE.stores.workers().beat("w-busy", 1);
    FIXTURE.clock.advance(Duration.ofSeconds(5)); // w-silent beats every 1s: stale now

    Reply reply = FIXTURE.http().get("/api/v1/workers");

    assertThat(reply.status()).isEqualTo(200);
    JsonNode items = reply.json().get("items");
    assertThat(items)
        .extracting(w -> w.get("id").asText())
        .containsExactlyInAnyOrder("w-silent", "w-busy");
    JsonNode busy = byId(items, "w-busy");
    assertThat(busy.get("status").asText()).isEqualTo("alive");
    assertThat(busy.get("host").asText()).isEqualTo("host-a");
    assertThat(busy.get("running").asInt()).isEqualTo(1);
    assertThat(busy.get("heartbeatInterval").asText()).isEqualTo("PT10S");
    assertThat(busy.get("namespaces")).extracting(JsonNode::asText).contains("default", "reports");
    assertThat(busy.get("jobs")).hasSize(1);
    assertThat(busy.get("jobs").get(0).get("id").asText()).isEqualTo(job.id().toString());
    assertThat(busy.get("jobs").get(0).get("type").asText()).isEqualTo("report");
    assertThat(busy.get("jobs").get(0).get("attempt").asInt()).isEqualTo(1);
    assertThat(byId(items, "w-silent").get("status").asText()).isEqualTo("stale");

    FIXTURE.stores.workers().stop("w-silent");
    JsonNode after = FIXTURE.http().get("/api/v1/workers").json().get("items");
    assertThat(after.get(after.size() - 1).get("id").asText())
        .as("stopped workers come last")
        .isEqualTo("w-silent");
    assertThat(byId(after, "w-silent").get("status").asText()).isEqualTo("stopped");
  }

  @Test
  void theRunningCountIsTheNumberOfAttemptsListed() {
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-count", "host-d", 14, List.of("counting"), 8, Duration.ofSeconds(10)));
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-idle", "host-e", 15, List.of("counting"), 8, Duration.ofSeconds(10)));
    Job job =
        FIXTURE
            .stores
            .submissions()
            .submit(
                List.of(
                    Jobs.aJob()
                        .namespace("counting")
                        .type("report")
                        .runAt(FIXTURE.clock.instant())
                        .build()))
            .get(0)
            .job();
    // The heartbeats say otherwise: w-count beat before it claimed, w-idle before its jobs ended.
    FIXTURE.stores.workers().beat("w-count", 0);
    FIXTURE.stores.workers().beat("w-idle", 3);
    FIXTURE.stores.transitions().claim(List.of(job.id()), "w-count");

    JsonNode items =
        FIXTURE.http().namespace("counting").get("/api/v1/workers").json().get("items");

    JsonNode busy = byId(items, "w-count");
    assertThat(busy.get("jobs")).hasSize(1);
    assertThat(busy.get("running").asInt()).isEqualTo(1);
    JsonNode idle = byId(items, "w-idle");
    assertThat(idle.get("jobs")).isEmpty();
    assertThat(idle.get("running").asInt()).isZero();
  }

  @Test
  void aKeySeesOnlyItsOwnNamespacesOfASharedWorker() {
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration(
                "w-shared",
                "host-f",
                16,
                List.of("alpha", "beta", "gamma"),
                8,
                Duration.ofSeconds(10)));
    FIXTURE
        .stores
        .workers()
        .register(
            new Registration("w-gamma", "host-g", 17, List.of("gamma"), 8, Duration.ofSeconds(10)));
    String alphaKey = key("viewer", "[\"alpha\"]");
    String alphaBetaKey = key("viewer", "[\"alpha\",\"beta\"]");
    String everyKey = key("viewer", "[\"*\"]");

    JsonNode alpha = workers(alphaKey, "alpha");
    assertThat(alpha).extracting(w -> w.get("id").asText()).containsExactly("w-shared");
    assertThat(byId(alpha, "w-shared").get("namespaces"))
        .extracting(JsonNode::asText)
        .containsExactly("alpha");

    JsonNode alphaBeta = workers(alphaBetaKey, "alpha");
    assertThat(byId(alphaBeta, "w-shared").get("namespaces"))
        .extracting(JsonNode::asText)
        .containsExactly("alpha", "beta");
    assertThat(workers(alphaBetaKey, "beta"))
        .extracting(w -> w.get("id").asText())
        .containsExactly("w-shared");
    assertThat(FIXTURE.http().key(alphaBetaKey).namespace("gamma").get("/api/v1/workers").status())
        .as("a namespace the key may not act in")
        .isEqualTo(403);

    // a key of every namespace, viewer or admin, sees every namespace of every worker
    for (String all : List.of(everyKey, ApiFixture.ADMIN_KEY)) {
      JsonNode gamma = workers(all, "gamma");
      assertThat(gamma)
          .extracting(w -> w.get("id").asText())
          .containsExactlyInAnyOrder("w-shared", "w-gamma");
      assertThat(byId(gamma, "w-shared").get("namespaces"))
          .extracting(JsonNode::asText)
          .containsExactly("alpha", "beta", "gamma");
    }
  }

  private static JsonNode workers(String key, String namespace) {
    Reply reply = FIXTURE.http().key(key).namespace(namespace).get("/api/v1/workers");
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    return reply.json().get("items");
  }

  /** A new key of {@code role} for {@code namespaces} (a JSON array); its secret. */
  private static String key(String role, String namespaces) {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\"workers-"
                    + role
                    + "-"
                    + namespaces.hashCode()
                    + "\",\"role\":\""
                    + role
                    + "\",\"namespaces\":"
                    + namespaces
                    + "}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    return created.json().get("secret").asText();
  }

  private static JsonNode byId(JsonNode items, String id) {
    for (JsonNode w : items) {
      if (w.get("id").asText().equals(id)) {
        return w;
      }
    }
    throw new AssertionError("no worker " + id + " in " + items);
  }

  @Test
  void aBadLimitIsAProblemNamingIt() {
    Reply reply = FIXTURE.http().get("/api/v1/workers?limit=0");

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().toString()).contains("limit");
  }
}
