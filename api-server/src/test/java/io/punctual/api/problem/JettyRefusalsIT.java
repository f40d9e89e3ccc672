package io.punctual.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests Jetty refuses before the application runs, sent over a raw socket: each is answered with
 * problem+json whatever the Accept header, and nothing is stored.
 */
class JettyRefusalsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JOB = "{\"type\":\"refused\"}";

  /** A body is read only once its key was checked: the body's own refusals need a valid key. */
  private static final String KEY = "Authorization: Bearer " + ApiFixture.ADMIN_KEY + "\r\n";

  @Test
  void ambiguousPaths() throws IOException {
    for (String path : new String[] {"/api/v1/jobs%00", "/api/v1/%2e%2e/jobs", "/api/v1%2Fjobs"}) {
      assertProblem(send(post(path, JOB)), 400);
    }
  }

  @Test
  void aUriOver8KbIs414() throws IOException {
    assertProblem(send(post("/api/v1/jobs?x=" + "a".repeat(9000), JOB)), 414);
  }

  @Test
  void headersOver8KbAre431() throws IOException {
    assertProblem(send(post("/api/v1/jobs", JOB, "X-Big: " + "a".repeat(9000))), 431);
  }

  @Test
  void controlCharactersInHeadersAre400() throws IOException {
    assertProblem(send(post("/api/v1/jobs", JOB, "X-Bad: a\u0000b")), 400);
    assertProblem(send(post("/api/v1/jobs", JOB, "X-Bad: a\u0001b")), 400);
    assertProblem(send(post("/api/v1/jobs", JOB, "X-Bad\u0007: ab")), 400);
  }

  @Test
  void noHostIs400() throws IOException {
    String request =
        "POST /api/v1/jobs HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: "
            + JOB.length()
            + "\r\nConnection: close\r\n\r\n"
            + JOB;
    assertProblem(send(request), 400);
  }

  @Test
  void contentLengthWithTransferEncodingIs400() throws IOException {
    String chunked = Integer.toHexString(JOB.length()) + "\r\n" + JOB + "\r\n0\r\n\r\n";
    String request =
        head("POST", "/api/v1/jobs")
            + "Content-Length: "
            + JOB.length()
            + "\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunked;
    assertProblem(send(request), 400);
  }

  @Test
  void unknownMethodIs405() throws IOException {
    assertProblem(send(head("FROB", "/api/v1/jobs") + "\r\n"), 405);
  }

  @Test
  void expectOtherThanContinueIs417() throws IOException {
    assertProblem(send(post("/api/v1/jobs", JOB, "Expect: teapot")), 417);
  }

  @Test
  void anUnparseableContentTypeIs4xx() throws IOException {
    String request =
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n"
            + "Content-Type: ;;;/==\r\nContent-Length: "
            + JOB.length()
            + "\r\nConnection: close\r\n\r\n"
            + JOB;
    Response response = send(request);
    assertThat(response.status()).isIn(400, 415);
    assertProblem(response, response.status());
  }

  @Test
  void aMalformedChunkedBodyToARouteThatCannotAnswerHtmlIs406Unread() throws IOException {
    // the route answers JSON only: refused before its body is read (or the key checked)
    String request =
        head("POST", "/api/v1/jobs")
            + "Transfer-Encoding: chunked\r\n\r\nzz\r\n"
            + JOB
            + "\r\n0\r\n\r\n";
    assertProblem(send(request), 406);
  }

  @Test
  void aBodyThatIsNotGzipToARouteThatCannotAnswerHtmlIs406Unread() throws IOException {
    String request =
        head("POST", "/api/v1/jobs")
            + "Content-Encoding: gzip\r\nContent-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB;
    assertProblem(send(request), 406);
  }

  @Test
  void aBodyThatIsNotGzipIs400AlsoWhenJsonIsAccepted() throws IOException {
    String request =
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n"
            + KEY
            + "Content-Type: application/json\r\nConnection: close\r\n"
            + "Content-Encoding: gzip\r\nContent-Length: "
            + JOB.length()
            + "\r\n\r\n"
            + JOB;
    assertProblem(send(request), 400);
  }

  @Test
  void aMalformedChunkedBodyIs400AlsoWhenJsonIsAccepted() throws IOException {
    String request =
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n"
            + KEY
            + "Content-Type: application/json\r\nConnection: close\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n5\r\n"
            + JOB
            + "\r\n0\r\n\r\n";
    assertProblem(send(request), 400);
  }

  @Test
  void aGzipBodyIsAccepted() throws IOException {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write("{\"type\":\"zipped\"}".getBytes(StandardCharsets.UTF_8));
    }
    byte[] body = gz.toByteArray();
    String request =
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + "Authorization: Bearer "
            + ApiFixture.ADMIN_KEY
            + "\r\nConnection: close\r\nContent-Encoding: gzip\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    Response response = send(request, body);
    assertThat(response.status()).as(response.raw()).isEqualTo(201);
    assertThat(response.body()).contains("\"type\":\"zipped\"");
  }

  private static String head(String method, String path) {
    return method
        + " "
        + path
        + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n"
        + "Authorization: Bearer "
        + ApiFixture.ADMIN_KEY
        + "\r\n"
        + "Content-Type: application/json\r\nConnection: close\r\n";
  }

  private static String post(String path, String body, String... headers) {
    StringBuilder request = new StringBuilder(head("POST", path));
    for (String header : headers) {
      request.append(header).append("\r\n");
    }
    return request
        .append("Content-Length: ")
        .append(body.length())
        .append("\r\n\r\n")
        .append(body)
        .toString();
  }

  private static Response send(String request) throws IOException {
    return send(request, new byte[0]);
  }

  private static Response send(String request, byte[] body) throws IOException {
    try (Socket socket = new Socket(FIXTURE.baseUri().getHost(), FIXTURE.baseUri().getPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      return new Response(
          new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static void assertProblem(Response response, int status) throws IOException {
    assertThat(response.status()).as(response.raw()).isEqualTo(status);
    assertThat(response.header("content-type")).as(response.raw()).startsWith(Problem.MEDIA_TYPE);
    JsonNode json = JSON.readTree(response.body());
    assertThat(json.get("type").asText()).startsWith(Problem.TYPE_PREFIX);
    assertThat(json.get("title").asText()).isNotBlank();
    assertThat(json.get("status").asInt()).isEqualTo(status);
    assertThat(response.body()).doesNotContain("aaaa").doesNotContain("\u0000");
    assertThat(storedJobs()).isZero();
  }

  private static long storedJobs() {
    try (Handle handle = FIXTURE.stores.database().jdbi().open()) {
      return handle
          .createQuery("SELECT count(*) FROM jobs WHERE type = 'refused'")
          .mapTo(Long.class)
          .one();
    }
  }

  private record Response(String raw) {
    int status() {
      return Integer.parseInt(raw.substring(9, 12));
    }

    String header(String name) {
      for (String line : raw.substring(0, raw.indexOf("\r\n\r\n")).split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).toLowerCase(Locale.ROOT).equals(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return "";
    }

    String body() {
      return raw.substring(raw.indexOf("\r\n\r\n") + 4);
    }
  }
}
