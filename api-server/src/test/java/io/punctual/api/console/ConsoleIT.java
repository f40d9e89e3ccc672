package io.punctual.api.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.net.http.HttpRequest;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the web console needs from the API process: its assets at {@code /ui} with a strict policy,
 * {@code GET /api/v1/me}, {@code GET /api/v1/queues/depth}, and the refusal of cross-site mutating
 * requests. The pages themselves are driven in a browser by ConsoleE2E (deploy).
 */
class ConsoleIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void theAssetsAreServedWithoutAKeyAndWithAStrictPolicy() {
    HttpSupport anonymous = FIXTURE.http().key(null);
    Reply page = anonymous.get("/ui/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.contentType()).startsWith("text/html");
    assertThat(page.raw().body()).contains("<script type=\"module\" src=\"app.js\"></script>");
    assertThat(page.header("Content-Security-Policy"))
        .contains(ConsoleHeaders.CONTENT_SECURITY_POLICY);
    assertThat(page.header("X-Content-Type-Options")).contains("nosniff");
    assertThat(page.header("X-Frame-Options")).contains("DENY");

    for (String asset :
        new String[] {
          "app.js",
          "api.js",
          "dom.js",
          "app.css",
          "pages/overview.js",
          "pages/job.js",
          "pages/reference.js"
        }) {
      Reply reply = anonymous.get("/ui/" + asset);
      assertThat(reply.status()).as(asset).isEqualTo(200);
      assertThat(reply.contentType())
          .as(asset)
          .contains(asset.endsWith(".css") ? "text/css" : "javascript");
      assertThat(reply.header("Content-Security-Policy")).as(asset).isPresent();
      // Built with createElement and textContent only: no HTML parsing of anything.
      assertThat(reply.raw().body()).as(asset).doesNotContain("innerHTML", "outerHTML", "eval(");
    }
    assertThat(anonymous.get("/ui/no-such-file.js").status()).isEqualTo(404);
  }

  @Test
  void meAnswersTheCallersKey() {
    Reply admin = FIXTURE.http().get("/api/v1/me");
    assertThat(admin.status()).isEqualTo(200);
    assertThat(admin.json().get("role").asText()).isEqualTo("admin");
    assertThat(admin.json().get("namespaces").get(0).asText()).isEqualTo("*");
    assertThat(admin.json().get("namespace").asText()).isEqualTo("default");
    assertThat(admin.json().has("keyId")).isTrue();
    assertThat(admin.raw().body()).doesNotContain(ApiFixture.ADMIN_KEY);

    String viewer = key("console viewer", "viewer", "[\"reports\"]");
    Reply me = FIXTURE.http().key(viewer).get("/api/v1/me");
    assertThat(me.status()).isEqualTo(200);
    assertThat(me.json().get("name").asText()).isEqualTo("console viewer");
    assertThat(me.json().get("role").asText()).isEqualTo("viewer");
    assertThat(me.json().get("namespaces").toString()).isEqualTo("[\"reports\"]");
    assertThat(me.json().get("namespace").asText()).isEqualTo("reports");
    assertThat(FIXTURE.http().key(null).get("/api/v1/me").status()).isEqualTo(401);
  }

  @Test
  void queueDepthCountsDueAndFutureJobsPerPriorityOfTheNamespace() {
    HttpSupport depthNs = FIXTURE.http().namespace("depth");
    assertThat(depthNs.post("/api/v1/jobs", "{\"type\":\"noop\",\"priority\":\"high\"}").status())
        .isEqualTo(201);
    assertThat(depthNs.post("/api/v1/jobs", "{\"type\":\"noop\",\"priority\":\"high\"}").status())
        .isEqualTo(201);
    assertThat(
            depthNs
                .post("/api/v1/jobs", "{\"type\":\"noop\",\"priority\":\"low\",\"delay\":\"PT5S\"}")
                .status())
        .isEqualTo(201);
    FIXTURE.http().namespace("other").post("/api/v1/jobs", "{\"type\":\"noop\"}");

    Reply reply = depthNs.get("/api/v1/queues/depth");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().get("namespace").asText()).isEqualTo("depth");
    Map<String, JsonNode> byPriority = new HashMap<>();
    reply.json().get("priorities").forEach(p -> byPriority.put(p.get("priority").asText(), p));
    assertThat(byPriority).containsOnlyKeys("critical", "high", "normal", "low");
    assertThat(byPriority.get("high").get("due").asLong()).isEqualTo(2);
    assertThat(byPriority.get("high").get("future").asLong()).isZero();
    assertThat(byPriority.get("low").get("due").asLong()).isZero();
    assertThat(byPriority.get("low").get("future").asLong()).isEqualTo(1);
    assertThat(byPriority.get("normal").get("due").asLong()).isZero(); // other's job is not here
  }

  @Test
  void aCrossSiteMutatingRequestIsRefusedBeforeAnythingIsStored() {
    int before = count("crosssite");
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch"}) {
      String body =
          path.endsWith("batch") ? "{\"jobs\":[{\"type\":\"noop\"}]}" : "{\"type\":\"noop\"}";
      Reply refused =
          FIXTURE
              .http()
              .namespace("crosssite")
              .send(
                  FIXTURE
                      .http()
                      .namespace("crosssite")
                      .request(path)
                      .header("Content-Type", "application/json")
                      .header("Sec-Fetch-Site", "cross-site")
                      .POST(HttpRequest.BodyPublishers.ofString(body)));
      assertThat(refused.status()).as(path).isEqualTo(403);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      assertThat(refused.json().get("type").asText()).endsWith("/cross-site-request");
      assertThat(refused.json().get("field").asText()).isEqualTo("Sec-Fetch-Site");
    }
    assertThat(count("crosssite")).isEqualTo(before);

    // The console's own requests (same-origin) and reads from anywhere go through.
    Reply sameOrigin =
        FIXTURE
            .http()
            .send(
                FIXTURE
                    .http()
                    .namespace("crosssite")
                    .request("/api/v1/jobs")
                    .header("Content-Type", "application/json")
                    .header("Sec-Fetch-Site", "same-origin")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"noop\"}")));
    assertThat(sameOrigin.status()).isEqualTo(201);
    Reply crossSiteRead =
        FIXTURE
            .http()
            .send(
                FIXTURE
                    .http()
                    .namespace("crosssite")
                    .request("/api/v1/jobs")
                    .header("Sec-Fetch-Site", "cross-site")
                    .GET());
    assertThat(crossSiteRead.status()).isEqualTo(200);
    assertThat(count("crosssite")).isEqualTo(before + 1);
  }

  private static int count(String namespace) {
    return FIXTURE.http().namespace(namespace).get("/api/v1/jobs").json().get("items").size();
  }

  private static String key(String name, String role, String namespaces) {
    Reply reply =
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
    assertThat(reply.status()).isEqualTo(201);
    return reply.json().get("secret").asText();
  }
}
