package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import io.punctual.api.support.HttpSupport.Reply;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ListJobsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  static final String NS = "listing";
  static final Instant T0 = Instant.parse("2031-03-01T00:00:00Z");
  static final List<String> TYPE_A = new ArrayList<>();
  static String cancelled;

  @BeforeAll
  static void jobs() {
    for (int h = 1; h <= 5; h++) {
      TYPE_A.add(submit("{\"type\":\"a\",\"runAt\":\"" + T0.plus(Duration.ofHours(h)) + "\"}"));
    }
    submit("{\"type\":\"b\",\"tags\":[\"vip\"],\"runAt\":\"" + T0.plus(Duration.ofDays(1)) + "\"}");
    cancelled =
        submit(
            "{\"type\":\"b\",\"tags\":[\"vip\",\"x\"],\"runAt\":\""
                + T0.plus(Duration.ofDays(2))
                + "\"}");
    assertThat(
            FIXTURE.http().namespace(NS).post("/api/v1/jobs/" + cancelled + "/cancel", "").status())
        .isEqualTo(200);
  }

  @Test
  void pagesThroughAFilteredListNewestFirst() {
    Reply first = list("?type=a&limit=2");
    String cursor1 = first.json().get("nextCursor").asText();
    Reply second = list("?type=a&limit=2&cursor=" + cursor1);
    String cursor2 = second.json().get("nextCursor").asText();
    Reply third = list("?type=a&limit=2&cursor=" + cursor2);

    assertThat(ids(first)).containsExactly(TYPE_A.get(4), TYPE_A.get(3));
    assertThat(ids(second)).containsExactly(TYPE_A.get(2), TYPE_A.get(1));
    assertThat(ids(third)).containsExactly(TYPE_A.get(0));
    assertThat(third.json().has("nextCursor")).isTrue();
    assertThat(third.json().get("nextCursor").isNull()).isTrue();
  }

  @Test
  void filtersByStatusTagAndTime() {
    assertThat(ids(list("?status=cancelled"))).containsExactly(cancelled);
    assertThat(ids(list("?status=PENDING"))).hasSize(6);
    assertThat(ids(list("?tag=vip"))).hasSize(2).contains(cancelled);
    assertThat(ids(list("?tag=x"))).containsExactly(cancelled);
    assertThat(
            ids(
                list(
                    "?from="
                        + T0.plus(Duration.ofHours(2))
                        + "&to="
                        + T0.plus(Duration.ofHours(4)))))
        .containsExactly(TYPE_A.get(2), TYPE_A.get(1));
    assertThat(ids(list("?type=none"))).isEmpty();
  }

  @Test
  void theDefaultLimitApplies() {
    Reply all = list("");

    assertThat(all.json().get("items")).hasSize(7);
    assertThat(all.json().get("nextCursor").isNull()).isTrue();
  }

  @Test
  void otherNamespacesAreNotListed() {
    Reply reply = FIXTURE.http().get("/api/v1/jobs");

    assertThat(reply.json().get("items")).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "status=DONE, status",
    "limit=0, limit",
    "limit=21, limit",
    "limit=ten, limit",
    "from=yesterday, from",
    "to=2030-01-01, to",
    "cursor=abc, cursor",
    "from=2031-01-02T00:00:00Z&to=2031-01-01T00:00:00Z, from"
  })
  void badParametersAre400NamingTheParameter(String query, String field) {
    Reply reply = list("?" + query);

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
  }

  @ParameterizedTest
  @CsvSource({
    "type=a%00, type",
    "type=%00, type",
    "tag=demo%00, tag",
    "status=SUCCEEDED%00, status",
    "limit=5%00, limit",
    "cursor=01a20789-30fb-757f-aa8b-37dcc072ee45%00, cursor",
    "from=2030-01-01T00:00:00Z%00, from"
  })
  void aNulInAQueryParameterIsA422NamingIt(String query, String field) {
    Reply reply = list("?" + query);

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(422);
    assertThat(reply.contentType()).startsWith("application/problem+json");
    assertThat(reply.json().get("field").asText()).isEqualTo(field);
    assertThat(reply.json().get("errors").get(0).get("message").asText())
        .isEqualTo("must not contain a NUL character (U+0000)");
  }

  @Test
  void aLoneSurrogateSpelledInAQueryParameterArrivesAsAReplacementCharacter() {
    // %ED%A0%80 is not UTF-8: the URI decoder reads it as U+FFFD, text like any other.
    Reply reply = list("?type=a%ED%A0%80");

    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    assertThat(reply.json().get("items")).isEmpty();
  }

  @Test
  void aNulInTheNamespaceHeaderNeverReachesAStore() throws IOException {
    // The JDK client will not send a NUL in a header, so the header goes raw. Jetty refuses the
    // control character before the application runs (AuthorizerTest covers the check behind it).
    String answer =
        raw(
            "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nPunctual-Namespace: listing\u0000\r\n"
                + "Connection: close\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 400");
  }

  private static String raw(String request) throws IOException {
    try (Socket socket = new Socket(FIXTURE.baseUri().getHost(), FIXTURE.baseUri().getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  private static Reply list(String query) {
    return FIXTURE.http().namespace(NS).get("/api/v1/jobs" + query);
  }

  private static List<String> ids(Reply reply) {
    assertThat(reply.status()).as(reply.raw().body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    for (JsonNode item : reply.json().get("items")) {
      ids.add(item.get("id").asText());
    }
    return ids;
  }

  private static String submit(String body) {
    Reply reply = FIXTURE.http().namespace(NS).post("/api/v1/jobs", body);
    assertThat(reply.status()).isEqualTo(201);
    return reply.json().get("id").asText();
  }
}
