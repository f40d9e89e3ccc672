package io.punctual.api.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The alert rule routes: CRUD, every refusal naming its field, and namespaces kept apart. */
class AlertRulesIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final String RULES = "/api/v1/alert-rules";

  private static HttpSupport in(String namespace) {
    return FIXTURE.http().namespace(namespace);
  }

  private static String rule(String name, String when, String notify) {
    return "{\"name\":\"" + name + "\",\"when\":" + when + ",\"notify\":" + notify + "}";
  }

  @Test
  void createReadReplaceAndDelete() {
    Reply created =
        in("crud")
            .post(
                RULES,
                "{\"name\":\"reports\",\"when\":{\"event\":\"job_failed\",\"type\":\"report\"},"
                    + "\"notify\":{\"webhook\":\"https://hooks.example.com/punctual\"},"
                    + "\"cooldown\":\"PT10M\"}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    String id = created.json().get("id").asText();
    assertThat(created.header("Location")).hasValueSatisfying(l -> l.endsWith(RULES + "/" + id));
    assertThat(created.json().get("namespace").asText()).isEqualTo("crud");
    assertThat(created.json().get("when").get("event").asText()).isEqualTo("job_failed");
    assertThat(created.json().get("when").get("type").asText()).isEqualTo("report");
    assertThat(created.json().get("notify").get("webhook").asText())
        .isEqualTo("https://hooks.example.com/punctual");
    assertThat(created.json().get("cooldown").asText()).isEqualTo("PT10M");

    Reply read = in("crud").get(RULES + "/" + id);
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json().get("name").asText()).isEqualTo("reports");

    Reply replaced =
        in("crud")
            .put(
                RULES + "/" + id,
                rule(
                    "reports-streak",
                    "{\"event\":\"consecutive_failures\",\"count\":3}",
                    "{\"slack\":\"https://hooks.slack.com/services/T0/B0/s3cret\"}"));
    assertThat(replaced.status()).as(replaced.raw().body()).isEqualTo(200);
    assertThat(replaced.json().get("when").get("count").asInt()).isEqualTo(3);
    assertThat(replaced.json().get("cooldown").asText()).isEqualTo("PT10M"); // the default
    assertThat(replaced.json().get("notify").get("slack").asText())
        .isEqualTo("https://hooks.slack.com/(hidden)")
        .doesNotContain("s3cret");
    assertThat(in("crud").get(RULES + "/" + id).raw().body()).doesNotContain("s3cret");

    Reply deliveries = in("crud").get(RULES + "/" + id + "/deliveries");
    assertThat(deliveries.status()).isEqualTo(200);
    assertThat(deliveries.json().get("items")).isEmpty();
    assertThat(deliveries.json().get("nextCursor").isNull()).isTrue();
    assertThat(in("crud").get(RULES + "/" + id + "/deliveries?cursor=abc").status()).isEqualTo(400);
    assertThat(in("crud").get(RULES + "/" + id + "/deliveries?cursor=0").status()).isEqualTo(400);

    assertThat(in("crud").method("DELETE", RULES + "/" + id).status()).isEqualTo(204);
    assertThat(in("crud").get(RULES + "/" + id).status()).isEqualTo(404);
    assertThat(in("crud").method("DELETE", RULES + "/" + id).status()).isEqualTo(404);
  }

  @Test
  void listsByNameAPageAtATime() {
    for (String name : new String[] {"c", "a", "b"}) {
      Reply r =
          in("paging")
              .post(
                  RULES,
                  rule(
                      name,
                      "{\"event\":\"no_worker\"}",
                      "{\"webhook\":\"https://example.com/h\"}"));
      assertThat(r.status()).isEqualTo(201);
    }
    List<String> names = new ArrayList<>();
    String cursor = null;
    do {
      Reply page =
          in("paging").get(RULES + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).isEqualTo(200);
      page.json().get("items").forEach(r -> names.add(r.get("name").asText()));
      cursor =
          page.json().get("nextCursor").isNull() ? null : page.json().get("nextCursor").asText();
    } while (cursor != null);
    assertThat(names).containsExactly("a", "b", "c");
    assertThat(in("paging").get(RULES + "?cursor=%25%25").status()).isEqualTo(400);
    assertThat(in("paging").get(RULES + "?cursor=AA").status()).as("a NUL name").isEqualTo(400);
    assertThat(in("paging").get(RULES + "/x/deliveries?cursor=abc").status()).isEqualTo(404);
  }

  @Test
  void aNameTakenIs409NamingName() {
    String body = rule("twice", "{\"event\":\"no_worker\"}", "{\"webhook\":\"https://e.com/h\"}");
    assertThat(in("dup").post(RULES, body).status()).isEqualTo(201);
    Reply again = in("dup").post(RULES, body);
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("type").asText()).endsWith("/alert-rule-exists");
    assertThat(again.json().get("field").asText()).isEqualTo("name");
    // The same name in another namespace is another rule.
    assertThat(in("dup-2").post(RULES, body).status()).isEqualTo(201);
  }

  @Test
  void everyRefusalNamesItsField() {
    String hook = "{\"webhook\":\"https://e.com/h\"}";
    assertRefused(rule("x", "{\"event\":\"nope\"}", hook), "when.event");
    assertRefused(rule("x", "{\"type\":\"a\"}", hook), "when.event");
    assertRefused(rule("x", "{\"event\":\"consecutive_failures\"}", hook), "when.count");
    assertRefused(
        rule("x", "{\"event\":\"consecutive_failures\",\"count\":0}", hook), "when.count");
    assertRefused(rule("x", "{\"event\":\"job_failed\",\"count\":3}", hook), "when.count");
    assertRefused(rule("x", "{\"event\":\"failure_rate\",\"percent\":50}", hook), "when.window");
    assertRefused(
        rule("x", "{\"event\":\"failure_rate\",\"percent\":101,\"window\":\"PT1H\"}", hook),
        "when.percent");
    assertRefused(
        rule("x", "{\"event\":\"duration_over\",\"threshold\":\"soon\"}", hook), "when.threshold");
    assertRefused(
        rule("x", "{\"event\":\"waiting_over\",\"threshold\":\"PT0S\"}", hook), "when.threshold");
    assertRefused(rule("x", "{\"event\":\"no_worker\",\"type\":\"a\"}", hook), "when.type");
    assertRefused(
        rule("x", "{\"event\":\"fire_time_missed\",\"scheduleId\":\"not-an-id\"}", hook),
        "when.scheduleId");
    assertRefused(
        rule(
            "x",
            "{\"event\":\"fire_time_missed\",\"scheduleId\":\"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b\"}",
            hook),
        "when.scheduleId");
    assertRefused(rule("x", "{\"event\":\"job_failed\",\"extra\":1}", hook), "when.extra");
    assertRefused(rule("x", "{\"event\":\"job_failed\"}", "{}"), "notify");
    assertRefused(
        rule(
            "x",
            "{\"event\":\"job_failed\"}",
            "{\"webhook\":\"https://a.com\",\"slack\":\"https://b.com\"}"),
        "notify");
    assertRefused(
        rule("x", "{\"event\":\"job_failed\"}", "{\"webhook\":\"ftp://e.com/h\"}"),
        "notify.webhook");
    assertRefused(
        rule("x", "{\"event\":\"job_failed\"}", "{\"webhook\":\"https://u:p@e.com/h\"}"),
        "notify.webhook");
    assertRefused(
        rule("x", "{\"event\":\"job_failed\"}", "{\"slack\":\"http://127.0.0.1:9/hook\"}"),
        "notify.slack");
    assertRefused(
        rule("x", "{\"event\":\"job_failed\"}", "{\"slack\":\"https://hooks.slack.com/(hidden)\"}"),
        "notify.slack");
    assertRefused(
        "{\"name\":\"x\",\"when\":{\"event\":\"job_failed\"},\"notify\":"
            + hook
            + ",\"cooldown\":\"P30D\"}",
        "cooldown");
    assertRefused("{\"when\":{\"event\":\"job_failed\"},\"notify\":" + hook + "}", "name");
    assertRefused(rule("x", "\"job_failed\"", hook), "when");

    Reply notJson = in("refusals").post(RULES, "[1]");
    assertThat(notJson.status()).isEqualTo(422);
    Reply broken = in("refusals").post(RULES, "{");
    assertThat(broken.status()).isEqualTo(400);
    assertThat(broken.contentType()).startsWith("application/problem+json");
    assertThat(in("refusals").get(RULES).json().get("items")).isEmpty();
  }

  private static void assertRefused(String body, String field) {
    Reply reply = in("refusals").post(RULES, body);
    assertThat(reply.status()).as(body + " -> " + reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    List<String> fields = new ArrayList<>();
    JsonNode errors = reply.json().get("errors");
    if (errors != null) {
      errors.forEach(e -> fields.add(e.get("field").asText()));
    }
    if (reply.json().has("field")) {
      fields.add(reply.json().get("field").asText());
    }
    assertThat(fields).as(body + " -> " + reply.raw().body()).contains(field);
  }

  @Test
  void aRuleOfAnotherNamespaceIsA404AndAKeyOfAnotherNamespaceIsRefused() {
    Reply created =
        in("iso-1")
            .post(
                RULES,
                rule("mine", "{\"event\":\"no_worker\"}", "{\"webhook\":\"https://e.com/h\"}"));
    String id = created.json().get("id").asText();
    String path = RULES + "/" + id;
    assertThat(in("iso-2").get(path).status()).isEqualTo(404);
    assertThat(in("iso-2").get(path + "/deliveries").status()).isEqualTo(404);
    assertThat(
            in("iso-2")
                .put(
                    path,
                    rule("taken", "{\"event\":\"no_worker\"}", "{\"webhook\":\"https://e.com/h\"}"))
                .status())
        .isEqualTo(404);
    assertThat(in("iso-2").method("DELETE", path).status()).isEqualTo(404);
    assertThat(in("iso-2").get(RULES).json().get("items")).isEmpty();
    assertThat(in("iso-1").get(path).status()).isEqualTo(200);
    assertThat(in("iso-1").get(RULES + "/not-a-rule").status()).isEqualTo(404);

    String viewer = createKey("iso viewer", "viewer", "[\"iso-1\"]");
    assertThat(FIXTURE.http().key(viewer).namespace("iso-1").get(path).status()).isEqualTo(200);
    assertThat(
            FIXTURE
                .http()
                .key(viewer)
                .namespace("iso-1")
                .post(
                    RULES,
                    rule("v", "{\"event\":\"no_worker\"}", "{\"webhook\":\"https://e.com/h\"}"))
                .status())
        .isEqualTo(403);
    String otherOperator = createKey("iso operator", "operator", "[\"iso-2\"]");
    Reply elsewhere = FIXTURE.http().key(otherOperator).namespace("iso-1").get(path);
    assertThat(elsewhere.status()).isIn(403, 404);
    assertThat(FIXTURE.http().key(otherOperator).namespace("iso-2").get(path).status())
        .isEqualTo(404);
  }

  private static String createKey(String name, String role, String namespaces) {
    Reply created =
        FIXTURE
            .http()
            .post(
                "/api/v1/keys",
                "{\"name\":\""
                    + name
                    + "\",\"role\":\""
                    + role
                    + "\",\"namespaces\":"
                    + namespaces
                    + "}");
    assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
    return created.json().get("secret").asText();
  }
}
