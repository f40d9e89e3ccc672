package io.punctual.api.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Raw HTTP against the test API, so tests can send anything (bad JSON, odd headers). */
public final class HttpSupport {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private String namespace;
  private String key;

  HttpSupport(URI base) {
    this.base = base;
  }

  public HttpSupport namespace(String value) {
    this.namespace = value;
    return this;
  }

  /** Requests carry {@code Authorization: Bearer <value>}; null: no Authorization header. */
  public HttpSupport key(String value) {
    this.key = value;
    return this;
  }

  /** A response and its body parsed as JSON (null when the body is not JSON). */
  public record Reply(int status, HttpResponse<String> raw, JsonNode json) {
    public String contentType() {
      return raw.headers().firstValue("Content-Type").orElse("");
    }

    public Optional<String> header(String name) {
      return raw.headers().firstValue(name);
    }
  }

  public Reply post(String path, String body) {
    return post(path, body, "application/json");
  }

  public Reply post(String path, String body, String contentType) {
    return send(
        request(path)
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Reply put(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Reply get(String path) {
    return send(request(path).GET());
  }

  public Reply method(String method, String path) {
    return send(request(path).method(method, HttpRequest.BodyPublishers.noBody()));
  }

  public Reply send(HttpRequest.Builder builder) {
    try {
      HttpResponse<String> response =
          CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response, parse(response.body()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public HttpRequest.Builder request(String path) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
    if (namespace != null) {
      builder.header("Punctual-Namespace", namespace);
    }
    if (key != null) {
      builder.header("Authorization", "Bearer " + key);
    }
    return builder;
  }

  private static JsonNode parse(String body) {
    try {
      return body == null || body.isEmpty() ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
