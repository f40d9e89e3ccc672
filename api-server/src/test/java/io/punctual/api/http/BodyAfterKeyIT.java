package io.punctual.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.punctual.api.support.ApiFixture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A body is read (and, gzip, inflated) only after the key was checked, and only up to {@code
 * api.maxRequestBytes} of what it inflates to. Each request here sends its headers and only the
 * start of a body whose {@code Content-Length} promises more, then waits for the answer: the server
 * answers without the rest, so it did not wait to read (or inflate) it. The body is a gzip bomb: 64
 * KB of compressed white space that inflates to 64 MB (the test API's cap is 64 KB).
 */
class BodyAfterKeyIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] BOMB = bomb(64 * 1024 * 1024);

  /** The part of the bomb sent before waiting for the answer: inflates to far over the cap. */
  private static final int SENT = 4 * 1024;

  @Test
  void aGzipBodyWithoutAValidKeyIs401BeforeAnyOfItIsRead() throws IOException {
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch", "/api/v1/workflows"}) {
      for (String key : new String[] {null, "pct_not-a-key-at-all-0123456789"}) {
        Answer answer = partly(path, key, "Content-Encoding: gzip\r\n", BOMB);

        assertThat(answer.status()).as(path + " " + key + ": " + answer.text()).isEqualTo(401);
        assertThat(answer.json().path("type").asText()).endsWith("/unauthorized");
      }
    }
  }

  @Test
  void aPlainBodyWithoutAValidKeyIs401BeforeItIsRead() throws IOException {
    // the fast path of POST /jobs read its whole body before the key, the 401 came after it
    byte[] body = ("{\"type\":\"x\",\"payload\":\"" + "a".repeat(30_000) + "\"}").getBytes();
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch"}) {
      Answer answer = partly(path, "pct_not-a-key-at-all-0123456789", "", body);

      assertThat(answer.status()).as(path + ": " + answer.text()).isEqualTo(401);
    }
  }

  @Test
  void aKeyThatMayNotCallTheRouteIs403BeforeTheBodyIsRead() throws IOException {
    String viewer =
        FIXTURE
            .http()
            .post("/api/v1/keys", "{\"name\":\"v\",\"role\":\"viewer\",\"namespaces\":[\"*\"]}")
            .json()
            .get("secret")
            .asText();
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch"}) {
      Answer answer = partly(path, viewer, "Content-Encoding: gzip\r\n", BOMB);

      assertThat(answer.status()).as(path + ": " + answer.text()).isEqualTo(403);
    }
  }

  @Test
  void aGzipBombWithAValidKeyIs413AfterTheCapNotAfterTheWhole() throws IOException {
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch", "/api/v1/workflows"}) {
      Answer answer = partly(path, ApiFixture.ADMIN_KEY, "Content-Encoding: gzip\r\n", BOMB);

      assertThat(answer.status()).as(path + ": " + answer.text()).isEqualTo(413);
      assertThat(answer.json().path("type").asText()).endsWith("/payload-too-large");
      assertThat(answer.json().path("detail").asText())
          .contains(Long.toString(FIXTURE.settings.maxRequestBytes));
    }
  }

  @Test
  void aGzipBodyUnderTheCapOnceInflatedIsAccepted() throws IOException {
    // 40 KB of white space inflated, under the 64 KB cap
    String job = "{" + " ".repeat(40_000) + "\"type\":\"zipped\"}";
    byte[] body = gzip(job.getBytes(StandardCharsets.UTF_8));
    assertThat(job.length()).isLessThan((int) FIXTURE.settings.maxRequestBytes);

    Answer answer = whole("/api/v1/jobs", ApiFixture.ADMIN_KEY, body);

    assertThat(answer.status()).as(answer.text()).isEqualTo(201);
    assertThat(answer.json().path("type").asText()).isEqualTo("zipped");
  }

  @Test
  void aRefusalBeforeTheBodyClosesTheConnectionAndSaysSo() throws IOException {
    // the body comes after the answer: without "Connection: close" a keep-alive client would send
    // its next request on a connection Jetty closes as it finds the body unread
    byte[] body = "{\"jobs\":[{\"type\":\"noop\"}]}".getBytes(StandardCharsets.UTF_8);
    for (String path : new String[] {"/api/v1/jobs", "/api/v1/jobs/batch"}) {
      try (Socket socket = socket()) {
        write(socket, keepAlive(path, "pct_not-a-key-at-all-0123456789", body.length));
        Answer answer = read(socket.getInputStream());
        write(socket, body);

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.text()).containsIgnoringCase("\r\nConnection: close\r\n");
        assertThat(socket.getInputStream().read()).as("closed after the answer").isEqualTo(-1);
      }
    }
  }

  @Test
  void aBodyReadToItsEndKeepsTheConnectionOpen() throws IOException {
    byte[] body = "{\"jobs\":[{\"type\":\"noop\"}]}".getBytes(StandardCharsets.UTF_8);
    try (Socket socket = socket()) {
      for (int i = 0; i < 3; i++) {
        write(socket, keepAlive("/api/v1/jobs/batch", ApiFixture.ADMIN_KEY, body.length));
        write(socket, body);
        Answer answer = read(socket.getInputStream());

        assertThat(answer.status()).as(answer.text()).isEqualTo(201);
        assertThat(answer.text()).doesNotContainIgnoringCase("Connection: close");
      }
    }
  }

  private static Socket socket() throws IOException {
    Socket socket = new Socket(FIXTURE.baseUri().getHost(), FIXTURE.baseUri().getPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static byte[] keepAlive(String path, String key, int length) {
    return ("POST "
            + path
            + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + "Authorization: Bearer "
            + key
            + "\r\nContent-Length: "
            + length
            + "\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1);
  }

  private static void write(Socket socket, byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
  }

  /** The answer's status and body. */
  record Answer(int status, String text) {
    JsonNode json() throws IOException {
      return JSON.readTree(text.substring(text.indexOf("\r\n\r\n") + 4));
    }
  }

  /**
   * Sends the headers of a POST whose {@code Content-Length} is the whole of {@code body}, then
   * only its first {@link #SENT} bytes, and reads the answer without sending more (the socket stays
   * open for writing, so the server cannot see an end of the body).
   */
  private static Answer partly(String path, String key, String extraHeaders, byte[] body)
      throws IOException {
    try (Socket socket = new Socket(FIXTURE.baseUri().getHost(), FIXTURE.baseUri().getPort())) {
      socket.setSoTimeout(10_000);
      String head =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              + (key == null ? "" : "Authorization: Bearer " + key + "\r\n")
              + extraHeaders
              + "Content-Length: "
              + body.length
              + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().write(Arrays.copyOf(body, Math.min(SENT, body.length)));
      socket.getOutputStream().flush();
      return read(socket.getInputStream());
    }
  }

  private static Answer whole(String path, String key, byte[] body) throws IOException {
    try (Socket socket = new Socket(FIXTURE.baseUri().getHost(), FIXTURE.baseUri().getPort())) {
      socket.setSoTimeout(10_000);
      String head =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              + "Authorization: Bearer "
              + key
              + "\r\nContent-Encoding: gzip\r\nConnection: close\r\nContent-Length: "
              + body.length
              + "\r\n\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().write(body);
      socket.getOutputStream().flush();
      return read(socket.getInputStream());
    }
  }

  /** One answer with a Content-Length (every problem and job the API writes has one). */
  private static Answer read(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int headEnd = -1;
    int length = -1;
    byte[] buffer = new byte[8192];
    while (true) {
      int n = in.read(buffer);
      if (n < 0) {
        break;
      }
      out.write(buffer, 0, n);
      String text = out.toString(StandardCharsets.ISO_8859_1);
      if (headEnd < 0 && (headEnd = text.indexOf("\r\n\r\n")) >= 0) {
        for (String line : text.substring(0, headEnd).split("\r\n")) {
          if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
            length = Integer.parseInt(line.substring(15).trim());
          }
        }
      }
      if (headEnd >= 0 && length >= 0 && out.size() >= headEnd + 4 + length) {
        break;
      }
    }
    String text = out.toString(StandardCharsets.UTF_8);
    return new Answer(Integer.parseInt(text.substring(9, 12)), text);
  }

  private static byte[] bomb(int zeros) {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      byte[] block = new byte[1 << 20];
      // white space: the JSON reader takes all of it and stops only at the cap (zeros it would
      // refuse at the first byte)
      java.util.Arrays.fill(block, (byte) ' ');
      for (int written = 0; written < zeros; written += block.length) {
        out.write(block);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return gz.toByteArray();
  }

  private static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(bytes);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return gz.toByteArray();
  }
}
