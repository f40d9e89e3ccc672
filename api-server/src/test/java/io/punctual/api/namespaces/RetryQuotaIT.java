package io.punctual.api.namespaces;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A retry adds a pending job like a submit, so retries count against the namespace's quotas: a
 * single retry is refused like a submit (429, nothing changed), a bulk retry takes its batches'
 * rate tokens (waiting while the bucket is empty) and stops, saying why, when the namespace holds
 * its maxPending. The API's clock stands still unless a test moves it: the bucket refills only when
 * told to.
 */
class RetryQuotaIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void aRetryIntoAFullNamespaceIsRefusedAndChangesNothing() {
    HttpSupport http = FIXTURE.http().namespace("retry-full");
    List<String> cancelled = cancelledJobs(http, 1);
    FIXTURE.http().put("/api/v1/namespaces/retry-full/quota", "{\"maxPending\":1}");
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);

    Reply refused = http.post("/api/v1/jobs/" + cancelled.get(0) + "/retry", "");

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.json().get("type").asText()).endsWith("/pending-quota-exceeded");
    assertThat(refused.json().get("field").asText()).isEqualTo("quota.maxPending");
    assertThat(status(http, cancelled.get(0))).isEqualTo("CANCELLED");

    FIXTURE.http().put("/api/v1/namespaces/retry-full/quota", "{\"maxPending\":2}");
    assertThat(http.post("/api/v1/jobs/" + cancelled.get(0) + "/retry", "").status())
        .isEqualTo(200);
    assertThat(status(http, cancelled.get(0))).isEqualTo("PENDING");
  }

  @Test
  void retriesAndSubmitsDrawOnOneRateBucket() {
    HttpSupport http = FIXTURE.http().namespace("retry-rate");
    List<String> cancelled = cancelledJobs(http, 2);
    FIXTURE
        .http()
        .put("/api/v1/namespaces/retry-rate/quota", "{\"submitsPerSecond\":1,\"burst\":2}");

    Reply first = http.post("/api/v1/jobs/" + cancelled.get(0) + "/retry", "");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.header("RateLimit")).hasValue("\"submits\";r=1;t=1");
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);

    Reply refused = http.post("/api/v1/jobs/" + cancelled.get(1) + "/retry", "");
    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.json().get("type").asText()).endsWith("/rate-quota-exceeded");
    assertThat(refused.header("Retry-After")).hasValue("1");
    assertThat(status(http, cancelled.get(1))).isEqualTo("CANCELLED");

    FIXTURE.clock.advance(Duration.ofSeconds(1));
    assertThat(http.post("/api/v1/jobs/" + cancelled.get(1) + "/retry", "").status())
        .isEqualTo(200);
  }

  /** A bulk retry of 5 with a burst of 2: two at once, then one more per second of the clock. */
  @Test
  void aBulkRetryTakesTheRateBatchByBatchAndWaitsForTokens() {
    HttpSupport http = FIXTURE.http().namespace("bulk-rate");
    cancelledJobs(http, 5);
    FIXTURE
        .http()
        .put("/api/v1/namespaces/bulk-rate/quota", "{\"submitsPerSecond\":1,\"burst\":2}");

    String id = startRetry(http);
    awaitDone(http, id, 2);
    assertThat(action(http, id).get("status").asText()).isEqualTo("running");
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(429);

    FIXTURE.clock.advance(Duration.ofSeconds(2));
    awaitDone(http, id, 4);
    FIXTURE.clock.advance(Duration.ofSeconds(1));
    awaitDone(http, id, 5);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> action(http, id).get("status").asText().equals("done"));
    assertThat(count(http, "PENDING")).isEqualTo(5);
  }

  @Test
  void aBulkRetryStopsAtTheNamespacesMaxPendingAndSaysSo() {
    HttpSupport http = FIXTURE.http().namespace("bulk-full");
    cancelledJobs(http, 5);
    assertThat(http.post("/api/v1/jobs", "{\"type\":\"t\"}").status()).isEqualTo(201);
    FIXTURE.http().put("/api/v1/namespaces/bulk-full/quota", "{\"maxPending\":3}");

    String id = startRetry(http);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !action(http, id).get("status").asText().equals("running"));

    JsonNode end = action(http, id);
    assertThat(end.get("status").asText()).isEqualTo("failed");
    assertThat(end.get("done").asInt()).isEqualTo(2);
    assertThat(end.get("error").asText()).contains("quota.maxPending").contains("bulk-full");
    assertThat(count(http, "PENDING")).isEqualTo(3);
    assertThat(count(http, "CANCELLED")).isEqualTo(3);
  }

  /** {@code n} jobs submitted and cancelled (retryable), before any quota is set. */
  private static List<String> cancelledJobs(HttpSupport http, int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = http.post("/api/v1/jobs", "{\"type\":\"t\"}").json().get("id").asText();
      assertThat(http.post("/api/v1/jobs/" + id + "/cancel", "").status()).isEqualTo(200);
      ids.add(id);
    }
    cache().runOnce(); // the pending count without them, as the refresh thread would
    return ids;
  }

  private static String startRetry(HttpSupport http) {
    Reply started =
        http.post(
            "/api/v1/jobs/bulk", "{\"action\":\"retry\",\"filter\":{\"status\":\"CANCELLED\"}}");
    assertThat(started.status()).as(started.raw().body()).isEqualTo(202);
    return started.json().get("id").asText();
  }

  private static void awaitDone(HttpSupport http, String id, int done) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(action(http, id).get("done").asInt()).isEqualTo(done));
  }

  private static JsonNode action(HttpSupport http, String id) {
    Reply reply = http.get("/api/v1/jobs/bulk/" + id);
    assertThat(reply.status()).isEqualTo(200);
    return reply.json();
  }

  private static String status(HttpSupport http, String id) {
    return http.get("/api/v1/jobs/" + id).json().get("status").asText();
  }

  private static int count(HttpSupport http, String status) {
    return http.get("/api/v1/jobs?status=" + status + "&limit=20").json().get("items").size();
  }

  /** The running API's namespace cache (a managed object of its lifecycle). */
  private static NamespaceCache cache() {
    return FIXTURE.managed(NamespaceCache.class);
  }
}
