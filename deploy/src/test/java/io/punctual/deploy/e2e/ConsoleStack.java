package io.punctual.deploy.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.embedded.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * What the console's browser tests run against: {@code java -jar punctual.jar dev --fresh} (API,
 * worker with the built-in handlers, planner and reaper, embedded stores) in its own process, and
 * plain HTTP to set up data with its admin key.
 */
final class ConsoleStack implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final ObjectMapper JSON = new ObjectMapper();

  final PunctualProcess dev;
  final String base;
  final String adminKey;

  /** The admin port (loopback only): another origin, and another site than {@link #base}. */
  final String adminBase;

  private ConsoleStack(PunctualProcess dev, String base, String adminKey, String adminBase) {
    this.dev = dev;
    this.base = base;
    this.adminKey = adminKey;
    this.adminBase = adminBase;
  }

  static ConsoleStack start(Path tmp) {
    int http = FreePorts.pick();
    int admin = FreePorts.pick();
    Path dataDir = tmp.resolve("data");
    PunctualProcess dev =
        PunctualProcess.start(
            tmp.resolve("dev.log"),
            Map.of(
                "PUNCTUAL_DATA_DIR", dataDir.toString(),
                "PUNCTUAL_HTTP_PORT", Integer.toString(http),
                "PUNCTUAL_ADMIN_PORT", Integer.toString(admin),
                "PUNCTUAL_BOOTSTRAP_KEY", ""),
            "dev",
            "--fresh");
    try {
      String adminBase = "http://127.0.0.1:" + admin;
      dev.awaitHealthy(adminBase + "/healthcheck", Duration.ofMinutes(2));
      String key = Files.readString(dataDir.resolve("admin.key")).strip();
      return new ConsoleStack(dev, "http://localhost:" + http, key, adminBase);
    } catch (IOException | RuntimeException | Error e) {
      dev.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : sneaky(e);
    }
  }

  private static RuntimeException sneaky(Throwable e) {
    if (e instanceof RuntimeException r) {
      throw r;
    }
    throw (Error) e;
  }

  /** An HTTP answer: status, headers and the body parsed as JSON (null when it is not). */
  record Reply(int status, HttpResponse<String> raw, JsonNode json) {}

  Reply send(String method, String path, String body) {
    return send(method, path, body, adminKey, Map.of());
  }

  Reply send(String method, String path, String body, String key, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (key != null) {
      request.header("Authorization", "Bearer " + key);
    }
    headers.forEach(request::header);
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      try {
        json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      } catch (IOException notJson) {
        json = null;
      }
      return new Reply(response.statusCode(), response, json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** POSTs with the admin key and returns the JSON answer, failing on anything but 2xx. */
  JsonNode post(String path, String body) {
    Reply reply = send("POST", path, body);
    if (reply.status() / 100 != 2) {
      throw new AssertionError("POST " + path + " -> " + reply.status() + " " + reply.raw().body());
    }
    return reply.json();
  }

  JsonNode get(String path) {
    Reply reply = send("GET", path, null);
    if (reply.status() != 200) {
      throw new AssertionError("GET " + path + " -> " + reply.status() + " " + reply.raw().body());
    }
    return reply.json();
  }

  /** Creates a key of {@code role} for namespace default and returns its secret. */
  String key(String name, String role) {
    return post(
            "/api/v1/keys",
            "{\"name\":\"" + name + "\",\"role\":\"" + role + "\",\"namespaces\":[\"default\"]}")
        .get("secret")
        .asText();
  }

  /** Submits a job and returns its id. */
  String submit(String jobJson) {
    return post("/api/v1/jobs", jobJson).get("id").asText();
  }

  String status(String jobId) {
    return get("/api/v1/jobs/" + jobId).get("status").asText();
  }

  @Override
  public void close() {
    dev.close();
  }
}
