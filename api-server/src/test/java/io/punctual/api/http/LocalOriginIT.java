package io.punctual.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.config.ApiSettings;
import io.punctual.api.support.ApiFixture;
import io.punctual.client.JobRequest;
import io.punctual.client.PunctualClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With API keys off, a change is taken only under a Host of this server (or of {@code
 * api.allowedHosts}) and with a JSON content type, on every route, the submit fast path included;
 * reads are not affected. Requests go over a raw socket so that any Host can be sent.
 */
class LocalOriginIT {
  static final ApiFixture FIXTURE = ApiFixture.withoutKeys(settings());

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JOB = "{\"type\":\"noop\",\"delay\":\"PT1H\"}";

  private static ApiSettings settings() {
    ApiSettings settings = ApiFixture.testSettings();
    settings.allowedHosts = List.of("punctual.internal", "api.example.test:9999");
    return settings;
  }

  private static int port() {
    return FIXTURE.baseUri().getPort();
  }

  /** One answer: its status and its body as JSON (null when it is not JSON). */
  record Answer(int status, String contentType, JsonNode json) {}

  @Test
  void submitsUnderThisServersNamesAreTaken() {
    for (String host :
        List.of(
            "localhost:" + port(),
            "127.0.0.1:" + port(),
            "[::1]:" + port(),
            "punctual.internal",
            "punctual.internal:443",
            "api.example.test:9999")) {
      Answer answer = send("POST", "/api/v1/jobs", host, "application/json", JOB);
      assertThat(answer.status()).as(host + ": " + answer.json()).isEqualTo(201);
    }
    // the fast path's refusal of a JSON type it does not serve goes on to Jersey's own answer
    Answer withCharset =
        send("POST", "/api/v1/jobs", "localhost:" + port(), "application/json; charset=utf-8", JOB);
    assertThat(withCharset.status()).isEqualTo(201);
  }

  @Test
  void aChangeUnderAForeignHostIsRefusedOnEveryKindOfRoute() {
    String id = submit();
    long jobsBefore = jobCount();
    for (String host :
        List.of(
            "evil.example:" + port(),
            "evil.example",
            "localhost:" + (port() + 1),
            "localhost",
            "127.0.0.2:" + port(),
            "punctual.internal.evil.example",
            "api.example.test:" + port())) {
      for (String[] change :
          List.of(
              new String[] {"POST", "/api/v1/jobs", JOB},
              new String[] {"POST", "/api/v1/jobs/" + id + "/cancel", ""},
              new String[] {"PUT", "/api/v1/namespaces/default/weight", "{\"weight\":5}"},
              new String[] {"DELETE", "/api/v1/schedules/" + id, ""},
              new String[] {"POST", "/api/v1/no-such-route", "{}"})) {
        Answer answer = send(change[0], change[1], host, "application/json", change[2]);
        assertThat(answer.status()).as(host + " " + change[0] + " " + change[1]).isEqualTo(403);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("field").asText()).isEqualTo("Host");
        assertThat(answer.json().path("type").asText()).endsWith("/foreign-host");
        assertThat(answer.json().toString()).doesNotContain("evil");
      }
    }
    // a Host Jetty cannot read at all is its own 400, before any filter
    Answer malformed =
        send(
            "POST",
            "/api/v1/jobs",
            "localhost:" + port() + ".evil.example",
            "application/json",
            JOB);
    assertThat(malformed.status()).isEqualTo(400);
    assertThat(malformed.contentType()).startsWith("application/problem+json");
    Answer noHost = sendRaw("POST /api/v1/jobs HTTP/1.0\r\n", null, "application/json", JOB);
    assertThat(noHost.status()).isEqualTo(403);
    assertThat(noHost.json().path("field").asText()).isEqualTo("Host");

    assertThat(jobCount()).as("nothing stored").isEqualTo(jobsBefore);
    assertThat(status(id)).as("not cancelled").isEqualTo("PENDING");
  }

  @Test
  void aChangeThatIsNotJsonIsRefusedEvenWithoutABody() {
    String id = submit();
    long jobsBefore = jobCount();
    String host = "localhost:" + port();
    for (String contentType :
        List.of(
            "text/plain",
            "text/plain; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=b")) {
      Answer answer = send("POST", "/api/v1/jobs", host, contentType, JOB);
      assertThat(answer.status()).as(contentType).isEqualTo(415);
      assertThat(answer.json().path("field").asText()).isEqualTo("Content-Type");
    }
    Answer cancel = send("POST", "/api/v1/jobs/" + id + "/cancel", host, null, "");
    assertThat(cancel.status()).isEqualTo(415);
    assertThat(cancel.json().path("field").asText()).isEqualTo("Content-Type");
    assertThat(jobCount()).isEqualTo(jobsBefore);
    assertThat(status(id)).isEqualTo("PENDING");

    Answer json = send("POST", "/api/v1/jobs/" + id + "/cancel", host, "application/json", "");
    assertThat(json.status()).as(String.valueOf(json.json())).isEqualTo(200);
    assertThat(status(id)).isEqualTo("CANCELLED");
  }

  @Test
  void readsAreNotAffected() {
    Answer list = send("GET", "/api/v1/jobs", "evil.example", null, null);
    assertThat(list.status()).isEqualTo(200);
  }

  @Test
  void theJavaClientSendsEveryChangeAsJson() {
    PunctualClient client = PunctualClient.create(FIXTURE.baseUri());
    String id = client.submit(JobRequest.builder("noop").delay(Duration.ofHours(1)).build()).id();
    assertThat(client.cancel(id).status().name()).isEqualTo("CANCELLED");
  }

  private String submit() {
    Answer created = send("POST", "/api/v1/jobs", "localhost:" + port(), "application/json", JOB);
    assertThat(created.status()).isEqualTo(201);
    return created.json().get("id").asText();
  }

  private String status(String id) {
    return send("GET", "/api/v1/jobs/" + id, "localhost:" + port(), null, null)
        .json()
        .path("status")
        .asText();
  }

  private long jobCount() {
    return FIXTURE
        .stores
        .database()
        .jdbi()
        .withHandle(h -> h.createQuery("SELECT count(*) FROM jobs").mapTo(Long.class).one());
  }

  private static Answer send(
      String method, String path, String host, String contentType, String body) {
    return sendRaw(method + " " + path + " HTTP/1.1\r\n", host, contentType, body);
  }

  /** {@code requestLine}, then the headers given (null: left out), then the body. */
  private static Answer sendRaw(String requestLine, String host, String contentType, String body) {
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder(requestLine);
    if (host != null) {
      head.append("Host: ").append(host).append("\r\n");
    }
    if (contentType != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(bytes.length).append("\r\n");
    }
    head.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket("127.0.0.1", port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(bytes);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String text = all.toString(StandardCharsets.UTF_8);
      int end = text.indexOf("\r\n\r\n");
      String[] lines = text.substring(0, end).split("\r\n");
      int status = Integer.parseInt(lines[0].substring(9, 12));
      String type = "";
      for (String line : lines) {
        if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:")) {
          type = line.substring("content-type:".length()).trim();
        }
      }
      String rest = text.substring(end + 4);
      JsonNode json = null;
      if (!rest.isBlank()) {
        try {
          json = JSON.readTree(rest);
        } catch (IOException notJson) {
          json = null;
        }
      }
      return new Answer(status, type, json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
