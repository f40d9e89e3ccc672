package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport;
import io.punctual.api.support.HttpSupport.Reply;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /api/v1/jobs} answers the same through the fast path as through Jersey: the same API
 * twice, with and without {@code api.submitFastPath}, gets the same requests, and the answers must
 * match in status, media type, headers that matter and body (ids and times aside).
 */
class SubmitFastPathIT {
  static final ApiFixture FAST = ApiFixture.start();
  static final ApiFixture JERSEY = ApiFixture.start(jerseyOnly());

  @RegisterExtension static final DropwizardAppExtension<?> FAST_APP = FAST.app;
  @RegisterExtension static final DropwizardAppExtension<?> JERSEY_APP = JERSEY.app;

  private static ApiSettings jerseyOnly() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.submitFastPath = false;
    return settings;
  }

  /** Fields whose values differ between two stores by nature. */
  private static final Set<String> VOLATILE = Set.of("id", "runAt", "createdAt", "updatedAt");

  @Test
  void aValidJobIsAnsweredAlikeAndServedOutsideJersey() {
    String body =
        """
        {"type":"email.send","payload":{"to":"a@b.c","n":1e3},"priority":"high","maxAttempts":5,
         "tags":["mail"],"timeout":"PT30S","backoff":{"strategy":"fixed","delay":"PT10S"},
         "callback":{"url":"https://hooks.example/done","headers":{"X-Token":"t"}}}
        """;
    long handedOn = handedOn();
    long timed = timed();

    Reply fast = sameAnswer(h -> h.post("/api/v1/jobs", body));

    assertThat(fast.status()).isEqualTo(201);
    assertThat(fast.header("Location"))
        .hasValue(FAST.baseUri() + "/api/v1/jobs/" + fast.json().get("id").asText());
    assertThat(handedOn()).isEqualTo(handedOn);
    assertThat(timed()).isEqualTo(timed + 1);
    Reply read = FAST.http().get("/api/v1/jobs/" + fast.json().get("id").asText());
    assertThat(read.json()).isEqualTo(fast.json());
  }

  @Test
  void anIdempotentRepeatAndAConflictAreAnsweredAlike() {
    String first = "{\"type\":\"noop\",\"idempotencyKey\":\"order-1\"}";
    sameAnswer(h -> h.post("/api/v1/jobs", first));
    long handedOn = handedOn();

    Reply repeat = sameAnswer(h -> h.post("/api/v1/jobs", first));
    Reply conflict =
        sameAnswer(
            h -> h.post("/api/v1/jobs", "{\"type\":\"other\",\"idempotencyKey\":\"order-1\"}"));

    assertThat(repeat.status()).isEqualTo(200);
    assertThat(repeat.header("Location")).isEmpty();
    assertThat(conflict.status()).isEqualTo(409);
    assertThat(conflict.json().get("field").asText()).isEqualTo("idempotencyKey");
    assertThat(conflict.json().get("instance").asText()).isEqualTo("/api/v1/jobs");
    assertThat(handedOn()).as("both answered by the fast path").isEqualTo(handedOn);
  }

  @Test
  void namespacesAreResolvedByTheSameAuthorizer() {
    Reply other = sameAnswer(h -> h.namespace("billing").post("/api/v1/jobs", "{\"type\":\"a\"}"));
    Reply bad = sameAnswer(h -> h.namespace("no spaces").post("/api/v1/jobs", "{\"type\":\"a\"}"));

    assertThat(other.json().get("namespace").asText()).isEqualTo("billing");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("field").asText()).isEqualTo("Punctual-Namespace");
  }

  @Test
  void invalidRequestsAreHandedToJerseyWithTheirBody() {
    List<String> bodies =
        List.of(
            "{\"type\":\"noop\",\"priority\":\"urgent\",\"maxAttempts\":0}",
            "{\"type\":",
            "[1,2]",
            " ",
            "{\"payload\":{}}");
    for (String body : bodies) {
      long handedOn = handedOn();

      Reply reply = sameAnswer(h -> h.post("/api/v1/jobs", body));

      assertThat(reply.status()).as(body).isIn(400, 422);
      assertThat(reply.contentType()).as(body).startsWith("application/problem+json");
      assertThat(handedOn()).as(body).isEqualTo(handedOn + 1);
    }
  }

  @Test
  void unusualRequestsGoToJerseyAsTheyCame() {
    String job = "{\"type\":\"noop\"}";
    Reply text = sameAnswer(h -> h.post("/api/v1/jobs", job, "text/plain"));
    Reply latin1 =
        sameAnswer(h -> h.post("/api/v1/jobs", job, "application/json; charset=ISO-8859-1"));
    Reply utf8 = sameAnswer(h -> h.post("/api/v1/jobs", job, "application/json; charset=UTF-8"));
    Reply html =
        sameAnswer(
            h ->
                h.send(
                    h.request("/api/v1/jobs")
                        .header("Content-Type", "application/json")
                        .header("Accept", "text/html")
                        .POST(HttpRequest.BodyPublishers.ofString(job))));
    Reply chunked =
        sameAnswer(
            h ->
                h.send(
                    h.request("/api/v1/jobs")
                        .header("Content-Type", "application/json")
                        .POST(
                            HttpRequest.BodyPublishers.ofInputStream(
                                () ->
                                    new ByteArrayInputStream(
                                        job.getBytes(StandardCharsets.UTF_8))))));

    assertThat(text.status()).isEqualTo(415);
    assertThat(latin1.status()).isEqualTo(201);
    assertThat(utf8.status()).isEqualTo(201);
    assertThat(html.status()).isEqualTo(406);
    assertThat(chunked.status()).isEqualTo(201);
  }

  @Test
  void aBodyOverTheLimitIsRefusedAsBefore() {
    String big =
        "{\"type\":\"noop\",\"payload\":{\"s\":\""
            + "x".repeat((int) FAST.settings.maxRequestBytes)
            + "\"}}";

    Reply reply = sameAnswer(h -> h.post("/api/v1/jobs", big));

    assertThat(reply.status()).isEqualTo(413);
  }

  /** Sends the request to both APIs, checks the answers match, returns the fast path's. */
  private static Reply sameAnswer(Function<HttpSupport, Reply> request) {
    Reply fast = request.apply(FAST.http());
    Reply jersey = request.apply(JERSEY.http());
    assertThat(fast.status()).isEqualTo(jersey.status());
    assertThat(fast.contentType()).isEqualToIgnoringCase(jersey.contentType());
    assertThat(fast.header("Location").isPresent())
        .isEqualTo(jersey.header("Location").isPresent());
    assertThat(fast.header("Retry-After")).isEqualTo(jersey.header("Retry-After"));
    assertThat(fast.header("Content-Length").isPresent())
        .isEqualTo(jersey.header("Content-Length").isPresent());
    assertThat(withoutVolatileFields(fast.json())).isEqualTo(withoutVolatileFields(jersey.json()));
    return fast;
  }

  private static JsonNode withoutVolatileFields(JsonNode json) {
    if (json instanceof ObjectNode object) {
      ObjectNode copy = object.deepCopy();
      copy.remove(VOLATILE);
      if (copy.has("detail") && copy.get("status").asInt() == 500) {
        copy.remove("detail"); // carries a random error reference
      }
      return copy;
    }
    return json;
  }

  private static long handedOn() {
    return FAST_APP
        .getEnvironment()
        .metrics()
        .meter("punctual.api.jobs.submitFastPath.handedOn")
        .getCount();
  }

  private static long timed() {
    return FAST_APP
        .getEnvironment()
        .metrics()
        .timer(MetricRegistry.name(JobsResource.class, "submit"))
        .getCount();
  }
}
