package io.punctual.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import io.punctual.store.registry.WorkerRegistry.Registration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A key limited to namespace {@code iso-a} never sees or touches {@code iso-b}: naming it is a 403,
 * and its objects are 404 by id and absent from every list, whatever the read path (jobs,
 * executions, workflows, schedules and their jobs, workers).
 */
class IsolationIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static String keyA;
  static String jobB;
  static String workflowB;
  static String scheduleB;
  static String jobA;

  @BeforeAll
  static void twoNamespacesWithObjects() {
    keyA = KeysIT.createKey(FIXTURE, "team a", "operator", "[\"iso-a\"]");
    HttpSupport adminB = FIXTURE.http().namespace("iso-b");
    jobB = created(adminB.post("/api/v1/jobs", "{\"type\":\"secret-b\",\"delay\":\"PT1H\"}"));
    workflowB =
        created(
            adminB.post(
                "/api/v1/workflows",
                "{\"jobs\":[{\"ref\":\"one\",\"type\":\"secret-b\"},"
                    + "{\"ref\":\"two\",\"type\":\"secret-b\",\"dependsOn\":[{\"ref\":\"one\"}]}]}"));
    scheduleB =
        created(
            adminB.post(
                "/api/v1/schedules",
                "{\"name\":\"b-nightly\",\"cron\":\"0 3 * * *\",\"type\":\"secret-b\"}"));
    FIXTURE
        .stores
        .workers()
        .register(new Registration("w-b", "host-b", 1, List.of("iso-b"), 4, Duration.ofSeconds(5)));
    FIXTURE
        .stores
        .workers()
        .register(new Registration("w-a", "host-a", 2, List.of("iso-a"), 4, Duration.ofSeconds(5)));
    jobA = created(a().post("/api/v1/jobs", "{\"type\":\"mine\",\"delay\":\"PT1H\"}"));
  }

  private static HttpSupport a() {
    return FIXTURE.http().key(keyA);
  }

  private static String created(Reply reply) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(201);
    return reply.json().get("id").asText();
  }

  @Test
  void withoutAHeaderTheOnlyNamespaceOfTheKeyIsUsed() {
    Reply mine = a().get("/api/v1/jobs/" + jobA);
    assertThat(mine.status()).isEqualTo(200);
    assertThat(mine.json().get("namespace").asText()).isEqualTo("iso-a");
  }

  @Test
  void namingAnotherNamespaceIsA403NamingTheHeader() {
    List<Reply> replies = new ArrayList<>();
    HttpSupport inB = a().namespace("iso-b");
    replies.add(inB.get("/api/v1/jobs"));
    replies.add(inB.get("/api/v1/jobs/" + jobB));
    replies.add(inB.post("/api/v1/jobs", "{\"type\":\"x\"}"));
    replies.add(inB.post("/api/v1/jobs/" + jobB + "/cancel", ""));
    replies.add(inB.get("/api/v1/workflows/" + workflowB));
    replies.add(inB.get("/api/v1/schedules"));
    replies.add(inB.post("/api/v1/schedules/" + scheduleB + "/pause", ""));
    replies.add(inB.get("/api/v1/workers"));
    replies.add(a().namespace("default").get("/api/v1/jobs"));
    for (Reply reply : replies) {
      assertThat(reply.status()).as(reply.raw().uri().toString()).isEqualTo(403);
      assertThat(reply.contentType()).startsWith("application/problem+json");
      assertThat(reply.json().get("field").asText()).isEqualTo("Punctual-Namespace");
    }
  }

  @Test
  void anotherNamespacesObjectsAre404ByIdOnEveryPath() {
    List<Reply> replies = new ArrayList<>();
    replies.add(a().get("/api/v1/jobs/" + jobB));
    replies.add(a().get("/api/v1/jobs/" + jobB + "/executions"));
    replies.add(a().get("/api/v1/jobs/" + jobB + "/logs"));
    replies.add(a().post("/api/v1/jobs/" + jobB + "/cancel", ""));
    replies.add(a().get("/api/v1/workflows/" + workflowB));
    replies.add(a().post("/api/v1/workflows/" + workflowB + "/cancel", ""));
    replies.add(a().get("/api/v1/schedules/" + scheduleB));
    replies.add(a().get("/api/v1/schedules/" + scheduleB + "/jobs"));
    replies.add(a().get("/api/v1/schedules/" + scheduleB + "/preview"));
    replies.add(a().post("/api/v1/schedules/" + scheduleB + "/pause", ""));
    replies.add(a().post("/api/v1/schedules/" + scheduleB + "/trigger", ""));
    replies.add(
        a().send(
                a().request("/api/v1/schedules/" + scheduleB)
                    .header("Content-Type", "application/json")
                    .PUT(
                        java.net.http.HttpRequest.BodyPublishers.ofString(
                            "{\"name\":\"b-nightly\",\"cron\":\"0 4 * * *\",\"type\":\"x\"}"))));
    replies.add(a().method("DELETE", "/api/v1/schedules/" + scheduleB));
    for (Reply reply : replies) {
      assertThat(reply.status()).as(reply.raw().uri() + " " + reply.raw().body()).isEqualTo(404);
      assertThat(reply.raw().body()).doesNotContain("secret-b");
    }
    // And nothing of iso-b changed.
    HttpSupport adminB = FIXTURE.http().namespace("iso-b");
    assertThat(adminB.get("/api/v1/jobs/" + jobB).json().get("status").asText())
        .isEqualTo("PENDING");
    JsonNode schedule = adminB.get("/api/v1/schedules/" + scheduleB).json();
    assertThat(schedule.get("cron").asText()).isEqualTo("0 3 * * *");
    assertThat(schedule.get("status").asText()).isEqualTo("ACTIVE");
  }

  @Test
  void listsShowOnlyTheKeysNamespace() {
    assertThat(a().get("/api/v1/jobs?limit=20").raw().body())
        .contains(jobA)
        .doesNotContain(jobB)
        .doesNotContain("secret-b");
    assertThat(a().get("/api/v1/schedules").raw().body()).doesNotContain(scheduleB);
    JsonNode namespaces = a().get("/api/v1/namespaces").json().get("items");
    assertThat(namespaces).extracting(n -> n.get("name").asText()).containsExactly("iso-a");
    assertThat(a().get("/api/v1/namespaces/iso-b").status()).isEqualTo(404);
    JsonNode workers = a().get("/api/v1/workers").json().get("items");
    assertThat(workers).extracting(w -> w.get("id").asText()).containsExactly("w-a");
  }
}
