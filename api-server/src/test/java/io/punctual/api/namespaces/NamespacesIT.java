package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The namespace routes, and what deactivating a namespace does to submits. */
class NamespacesIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void theDefaultNamespaceExistsFromTheStart() {
    Reply reply = FIXTURE.http().get("/api/v1/namespaces/default");

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("active").asBoolean()).isTrue();
    assertThat(reply.json().get("quota").get("submitsPerSecond").isNull()).isTrue();
    assertThat(reply.json().get("usage").has("pending")).isTrue();
  }

  @Test
  void createReadAndChangeTheQuota() {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/namespaces",
                """
                {"name":"billing","quota":{"submitsPerSecond":50,"maxPending":1000}}
                """);

    assertThat(created.status()).isEqualTo(201);
    assertThat(created.header("Location")).hasValueSatisfying(l -> l.endsWith("/billing"));
    JsonNode quota = created.json().get("quota");
    assertThat(quota.get("submitsPerSecond").asInt()).isEqualTo(50);
    assertThat(quota.get("burst").asInt()).isEqualTo(50); // defaults to the rate
    assertThat(quota.get("maxPending").asLong()).isEqualTo(1000);
    assertThat(quota.get("maxPayloadBytes").isNull()).isTrue();
    assertThat(created.json().get("createdAt").asText()).isNotEmpty();

    FIXTURE.http().namespace("billing").post("/api/v1/jobs", "{\"type\":\"invoice\"}");
    Reply read = FIXTURE.http().get("/api/v1/namespaces/billing");
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().get("usage").get("pending").asLong()).isEqualTo(1);

    Reply changed =
        FIXTURE.http().put("/api/v1/namespaces/billing/quota", "{\"maxPayloadBytes\":512}");
    assertThat(changed.status()).isEqualTo(200);
    assertThat(changed.json().get("quota").get("submitsPerSecond").isNull()).isTrue();
    assertThat(changed.json().get("quota").get("maxPayloadBytes").asInt()).isEqualTo(512);
    assertThat(FIXTURE.stores.namespaces().find("billing").orElseThrow().quota().maxPayloadBytes())
        .isEqualTo(512);
  }

  @Test
  void theRunningCapAndTheLongestAttemptAreQuotasReadBack() {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/namespaces",
                "{\"name\":\"capped\",\"quota\":{\"maxRunning\":20,\"maxTimeout\":\"PT10M\"}}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    assertThat(created.json().get("quota").get("maxRunning").asInt()).isEqualTo(20);
    assertThat(created.json().get("quota").get("maxTimeout").asText()).isEqualTo("PT10M");
    JsonNode defaults = FIXTURE.http().get("/api/v1/namespaces/default").json().get("quota");
    assertThat(defaults.get("maxRunning").isNull()).isTrue();
    assertThat(defaults.get("maxTimeout").isNull()).isTrue();

    Reply changed = FIXTURE.http().put("/api/v1/namespaces/capped/quota", "{\"maxRunning\":3}");
    assertThat(changed.status()).isEqualTo(200);
    assertThat(changed.json().get("quota").get("maxTimeout").isNull()).isTrue();
    var quota = FIXTURE.stores.namespaces().find("capped").orElseThrow().quota();
    assertThat(quota.maxRunning()).isEqualTo(3);
    assertThat(quota.maxTimeout()).isNull();
  }

  @Test
  void theWeightIsSetAtCreationOrByItsRouteAndDefaultsToOne() {
    assertThat(FIXTURE.http().get("/api/v1/namespaces/default").json().get("weight").asInt())
        .isEqualTo(1);
    Reply created = FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"heavy\",\"weight\":3}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("weight").asInt()).isEqualTo(3);

    Reply changed = FIXTURE.http().put("/api/v1/namespaces/heavy/weight", "{\"weight\":1000}");

    assertThat(changed.status()).isEqualTo(200);
    assertThat(changed.json().get("weight").asInt()).isEqualTo(1000);
    assertThat(FIXTURE.stores.namespaces().find("heavy").orElseThrow().weight()).isEqualTo(1000);
    Reply listed = FIXTURE.http().get("/api/v1/namespaces?limit=20");
    assertThat(listed.json().get("items").findValues("weight")).allMatch(JsonNode::isInt);
  }

  @Test
  void aNameTakenIs409NamingName() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"twice\"}");

    Reply again = FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"twice\"}");

    assertThat(again.status()).isEqualTo(409);
    assertThat(again.contentType()).startsWith("application/problem+json");
    assertThat(again.json().get("type").asText()).endsWith("/namespace-exists");
    assertThat(again.json().get("field").asText()).isEqualTo("name");
  }

  @Test
  void listsByNameAPageAtATime() {
    for (String name : new String[] {"list-c", "list-a", "list-b"}) {
      FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"" + name + "\"}");
    }

    Reply first = FIXTURE.http().get("/api/v1/namespaces?limit=2&cursor=list-");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.json().get("items").findValuesAsText("name"))
        .containsExactly("list-a", "list-b");
    String cursor = first.json().get("nextCursor").asText();

    Reply second = FIXTURE.http().get("/api/v1/namespaces?limit=2&cursor=" + cursor);
    assertThat(second.json().get("items").findValuesAsText("name").get(0)).isEqualTo("list-c");

    Reply all = FIXTURE.http().get("/api/v1/namespaces?limit=20");
    assertThat(all.json().get("items").findValuesAsText("name")).contains("default", "list-a");
  }

  @Test
  void aNamespaceNeverCreatedIsCreatedByItsFirstSubmit() {
    assertThat(FIXTURE.http().get("/api/v1/namespaces/first-use").status()).isEqualTo(404);

    Reply submitted =
        FIXTURE.http().namespace("first-use").post("/api/v1/jobs", "{\"type\":\"t\"}");

    assertThat(submitted.status()).isEqualTo(201);
    Reply read = FIXTURE.http().get("/api/v1/namespaces/first-use");
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().get("active").asBoolean()).isTrue();
  }

  @Test
  void anInactiveNamespaceRefusesEverySubmitWith409AndStoresNothing() {
    FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"paused\"}");
    HttpSupport paused = FIXTURE.http().namespace("paused");
    assertThat(paused.post("/api/v1/jobs", "{\"type\":\"before\"}").status()).isEqualTo(201);

    Reply deactivated = FIXTURE.http().post("/api/v1/namespaces/paused/deactivate", "");
    assertThat(deactivated.status()).isEqualTo(200);
    assertThat(deactivated.json().get("active").asBoolean()).isFalse();
    assertThat(deactivated.json().get("deactivatedAt").asText()).isNotEmpty();
    int before = jobsIn("paused");

    Reply fast = paused.post("/api/v1/jobs", "{\"type\":\"t\"}");
    Reply jersey = paused.send(jerseySubmit(paused, "{\"type\":\"t\"}"));
    Reply batch = paused.post("/api/v1/jobs/batch", "{\"jobs\":[{\"type\":\"t\"}]}");
    Reply workflow =
        paused.post("/api/v1/workflows", "{\"jobs\":[{\"ref\":\"a\",\"type\":\"t\"}]}");
    Reply schedule =
        paused.post("/api/v1/schedules", "{\"name\":\"s\",\"cron\":\"0 * * * *\",\"type\":\"t\"}");

    for (Reply refused : new Reply[] {fast, jersey, batch, workflow, schedule}) {
      assertThat(refused.status()).isEqualTo(409);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      assertThat(refused.json().get("type").asText()).endsWith("/namespace-inactive");
      assertThat(refused.json().get("field").asText()).isEqualTo("Punctual-Namespace");
    }
    assertThat(fast.json().get("detail")).isEqualTo(jersey.json().get("detail"));
    assertThat(jobsIn("paused")).isEqualTo(before);

    Reply reactivated = FIXTURE.http().post("/api/v1/namespaces/paused/reactivate", "");
    assertThat(reactivated.json().get("active").asBoolean()).isTrue();
    assertThat(reactivated.json().get("deactivatedAt").isNull()).isTrue();
    assertThat(paused.post("/api/v1/jobs", "{\"type\":\"after\"}").status()).isEqualTo(201);
  }

  @Test
  void aScheduleOfAnInactiveNamespaceCannotBeTriggeredOrRedefined() {
    HttpSupport http = FIXTURE.http().namespace("sched-off");
    String body = "{\"name\":\"s\",\"cron\":\"0 * * * *\",\"type\":\"t\"}";
    Reply schedule = http.post("/api/v1/schedules", body);
    assertThat(schedule.status()).isEqualTo(201);
    String id = schedule.json().get("id").asText();
    FIXTURE.http().post("/api/v1/namespaces/sched-off/deactivate", "");

    Reply trigger = http.post("/api/v1/schedules/" + id + "/trigger", "");
    Reply redefine = http.put("/api/v1/schedules/" + id, body);

    assertThat(trigger.status()).isEqualTo(409);
    assertThat(trigger.json().get("type").asText()).endsWith("/namespace-inactive");
    assertThat(redefine.status()).isEqualTo(409);
    assertThat(jobsIn("sched-off")).isZero();
    assertThat(http.get("/api/v1/schedules/" + id).status()).isEqualTo(200); // reads still work
  }

  @Test
  void badBodiesAreProblemsNamingTheField() {
    assertField(FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"has space\"}"), "name");
    assertField(FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"{tag}\"}"), "name");
    assertField(FIXTURE.http().post("/api/v1/namespaces", "{}"), "name");
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-1\",\"colour\":\"red\"}"),
        "colour");
    assertField(
        FIXTURE
            .http()
            .post("/api/v1/namespaces", "{\"name\":\"ok-2\",\"quota\":{\"maxPending\":-1}}"),
        "quota.maxPending");
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-3\",\"quota\":{\"burst\":5}}"),
        "quota.burst");
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-4\",\"quota\":{\"rate\":5}}"),
        "quota.rate");
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-5\",\"quota\":7}"), "quota");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"submitsPerSecond\":0}"),
        "submitsPerSecond");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxPayloadBytes\":\"big\"}"),
        "maxPayloadBytes");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxRunning\":0}"), "maxRunning");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxRunning\":10001}"),
        "maxRunning");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxTimeout\":\"PT0S\"}"),
        "maxTimeout");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxTimeout\":\"an hour\"}"),
        "maxTimeout");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/quota", "{\"maxTimeout\":3600}"),
        "maxTimeout");
    assertThat(FIXTURE.stores.namespaces().find("default").orElseThrow().quota())
        .isEqualTo(io.punctual.store.namespace.Quota.UNLIMITED);
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-6\",\"weight\":0}"), "weight");
    assertField(
        FIXTURE.http().post("/api/v1/namespaces", "{\"name\":\"ok-7\",\"weight\":1.5}"), "weight");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/weight", "{\"weight\":1001}"), "weight");
    assertField(FIXTURE.http().put("/api/v1/namespaces/default/weight", "{}"), "weight");
    assertField(
        FIXTURE.http().put("/api/v1/namespaces/default/weight", "{\"weight\":2,\"w\":1}"), "w");
    assertThat(FIXTURE.stores.namespaces().find("default").orElseThrow().weight()).isEqualTo(1);
    assertThat(FIXTURE.stores.namespaces().find("ok-6")).isEmpty();
    assertThat(FIXTURE.stores.namespaces().find("ok-1")).isEmpty();
    assertThat(FIXTURE.stores.namespaces().find("ok-2")).isEmpty();

    Reply badLimit = FIXTURE.http().get("/api/v1/namespaces?limit=0");
    assertThat(badLimit.status()).isEqualTo(400);
    assertThat(badLimit.json().get("field").asText()).isEqualTo("limit");
    Reply badCursor = FIXTURE.http().get("/api/v1/namespaces?cursor=%7Bx%7D");
    assertThat(badCursor.status()).isEqualTo(400);
    assertThat(badCursor.json().get("field").asText()).isEqualTo("cursor");
  }

  @Test
  void anUnknownNamespaceIs404OnEveryRoute() {
    assertThat(FIXTURE.http().get("/api/v1/namespaces/nope").status()).isEqualTo(404);
    assertThat(FIXTURE.http().post("/api/v1/namespaces/nope/deactivate", "").status())
        .isEqualTo(404);
    assertThat(FIXTURE.http().post("/api/v1/namespaces/nope/reactivate", "").status())
        .isEqualTo(404);
    assertThat(FIXTURE.http().put("/api/v1/namespaces/nope/weight", "{\"weight\":2}").status())
        .isEqualTo(404);
    Reply quota = FIXTURE.http().put("/api/v1/namespaces/nope/quota", "{}");
    assertThat(quota.status()).isEqualTo(404);
    assertThat(quota.contentType()).startsWith("application/problem+json");
  }

  /** A single submit that the fast path hands to Jersey (an Accept with a parameter). */
  static java.net.http.HttpRequest.Builder jerseySubmit(HttpSupport http, String body) {
    return http.request("/api/v1/jobs")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json;q=0.9")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body));
  }

  private static void assertField(Reply reply, String field) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
  }

  static int jobsIn(ApiFixture fixture, String namespace) {
    return fixture
        .stack
        .database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM jobs WHERE namespace = :ns")
                    .bind("ns", namespace)
                    .mapTo(Integer.class)
                    .one());
  }

  private static int jobsIn(String namespace) {
    return jobsIn(FIXTURE, namespace);
  }
}
