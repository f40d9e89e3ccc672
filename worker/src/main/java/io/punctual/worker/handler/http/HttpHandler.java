package io.punctual.worker.handler.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.JobContext;
import io.punctual.worker.handler.JobHandler;
import io.punctual.worker.handler.JobResult;
import io.punctual.worker.handler.NonRetryableException;
import io.punctual.worker.handler.RetryAfterException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code http}: POSTs the job's payload as JSON to {@code callback.url}, with {@code
 * callback.headers}. 2xx succeeds (a JSON body becomes the result); 429 and 5xx are retried,
 * honouring {@code Retry-After}; other statuses fail the job; connection errors are retried.
 */
public final class HttpHandler implements JobHandler {
  private static final int MAX_ERROR_BODY = 500;
  private static final Set<String> RESERVED =
      Set.of("content-length", "host", "connection", "expect", "upgrade");

  private final WorkerSettings.Http settings;
  private final HttpClient client;
  private final Clock clock;

  public HttpHandler(WorkerSettings.Http settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(settings.connectTimeout)
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
  }

  @Override
  public String type() {
    return "http";
  }

  @Override
  public JobResult handle(JobContext ctx) throws Exception {
    URI url = callbackUrl(ctx);
    String body = ctx.payload() == null ? "{}" : Json.write(ctx.payload());
    HttpResponse<String> response =
        client.send(request(ctx, url, body), HttpResponse.BodyHandlers.ofString());
    return interpret(response);
  }

  HttpRequest request(JobContext ctx, URI url, String body) throws NonRetryableException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .timeout(timeout(ctx))
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .header("Content-Type", "application/json");
    JsonNode headers = ctx.callback().get("headers");
    if (headers != null && headers.isObject()) {
      for (Map.Entry<String, JsonNode> h : headers.properties()) {
        if (!RESERVED.contains(h.getKey().toLowerCase(java.util.Locale.ROOT))) {
          setHeader(request, h.getKey(), h.getValue().asText());
        }
      }
    }
    request.setHeader("Punctual-Job-Id", ctx.jobId().toString());
    request.setHeader("Punctual-Attempt", Integer.toString(ctx.attempt()));
    request.setHeader("Idempotency-Key", ctx.idempotencyKey());
    if (settings.signingSecret != null && !settings.signingSecret.isEmpty()) {
      long t = clock.instant().getEpochSecond();
      request.setHeader(
          WebhookSignature.HEADER, WebhookSignature.sign(settings.signingSecret, t, body));
    }
    return request.build();
  }

  private static void setHeader(HttpRequest.Builder request, String name, String value)
      throws NonRetryableException {
    try {
      request.setHeader(name, value);
    } catch (IllegalArgumentException e) {
      throw new NonRetryableException("callback.headers." + name + " is not a valid header", e);
    }
  }

  private Duration timeout(JobContext ctx) {
    Duration timeout = settings.requestTimeout;
    if (ctx.deadline() != null) {
      Duration left = Duration.between(clock.instant(), ctx.deadline());
      if (left.compareTo(timeout) < 0) {
        timeout = left.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : left;
      }
    }
    return timeout;
  }

  private static URI callbackUrl(JobContext ctx) throws NonRetryableException {
    JsonNode callback = ctx.callback();
    JsonNode url = callback == null ? null : callback.get("url");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      throw new NonRetryableException("http job needs callback.url");
    }
    try {
      URI uri = URI.create(url.asText());
      String scheme = uri.getScheme();
      if (uri.getHost() == null || !("http".equals(scheme) || "https".equals(scheme))) {
        throw new NonRetryableException("callback.url must be an http(s) URL: " + url.asText());
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new NonRetryableException("callback.url is not a valid URL: " + url.asText(), e);
    }
  }

  JobResult interpret(HttpResponse<String> response) throws Exception {
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return JobResult.success(jsonOrNull(response.body()));
    }
    String message = "callback answered HTTP " + status + excerpt(response.body());
    if (status == 429 || status >= 500) {
      Optional<String> header = response.headers().firstValue("Retry-After");
      Optional<Duration> after = header.flatMap(v -> RetryAfter.parse(v, clock.instant()));
      if (after.isPresent()) {
        throw new RetryAfterException(after.get(), message);
      }
      throw new HttpStatusException(status, message);
    }
    throw new NonRetryableException(message);
  }

  private static JsonNode jsonOrNull(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return Json.mapper().readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  private static String excerpt(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String trimmed = body.strip();
    return ": "
        + (trimmed.length() > MAX_ERROR_BODY
            ? trimmed.substring(0, MAX_ERROR_BODY) + "..."
            : trimmed);
  }
}
