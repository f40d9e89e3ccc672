package io.punctual.deploy.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The steady submissions of the network-fault tests: every {@code period} a batch of five quick
 * {@code http} jobs (and one taking {@code slowMs}, if positive) and one single submit, each with
 * the side-effect callback, on a virtual thread until {@link #close()}. What was accepted and how
 * each submit was answered goes into the current {@link Round}.
 */
final class JobLoad implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The answers 201 and 503 problem+json; anything else breaks a promise (no 500). */
  static final Set<String> EXPECTED_ANSWERS = Set.of("201", "503 problem+json", "no answer");

  /** The jobs accepted (201) during a round, and how its submits were answered. */
  record Round(Set<UUID> accepted, Map<String, AtomicInteger> answers) {
    Round() {
      this(ConcurrentHashMap.newKeySet(), new ConcurrentHashMap<>());
    }

    Map<String, Integer> tally() {
      Map<String, Integer> out = new TreeMap<>();
      answers.forEach((k, v) -> out.put(k, v.get()));
      return out;
    }

    /** Answers other than {@link #EXPECTED_ANSWERS}. */
    Map<String, Integer> unexpected() {
      Map<String, Integer> other = tally();
      other.keySet().removeAll(EXPECTED_ANSWERS);
      return other;
    }
  }

  private final String api;
  private final String callback;
  private final int slowMs;
  private final Duration period;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;
  private volatile Round round = new Round();

  JobLoad(String api, String callback, int slowMs, Duration period) {
    this.api = api;
    this.callback = callback;
    this.slowMs = slowMs;
    this.period = period;
    grantCallbackHost(api, callback);
    this.thread = Thread.ofVirtual().start(this::loop);
  }

  /**
   * Lets namespace default's callbacks reach {@code callback}'s host (an address the deployment's
   * {@code PUNCTUAL_HTTP_ALLOW} opens, which a namespace reaches only once granted), keeping the
   * answers.
   */
  static void grantCallbackHost(String api, String callback) {
    String host = URI.create(callback).getHost();
    try {
      HttpResponse<String> granted =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(api + "/api/v1/namespaces/default/egress"))
                  .timeout(Duration.ofSeconds(15))
                  .header("Authorization", "Bearer " + PunctualProcess.BOOTSTRAP_KEY)
                  .header("Content-Type", "application/json")
                  .PUT(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"allow\":[\"" + host + "/32\"],\"keepResponse\":true}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (granted.statusCode() != 200) {
        throw new IllegalStateException(
            "granting "
                + host
                + " to namespace default: "
                + granted.statusCode()
                + " "
                + granted.body());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts a new round (the previous one stops counting) and returns it. */
  Round newRound() {
    Round next = new Round();
    round = next;
    return next;
  }

  /** Sends a request to the API (the load's client and headers). */
  static HttpResponse<String> send(String url, String body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(15))
            .header("Authorization", "Bearer " + PunctualProcess.BOOTSTRAP_KEY)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private void loop() {
    while (running.get()) {
      StringBuilder body = new StringBuilder("{\"jobs\":[");
      for (int i = 0; i < 5; i++) {
        body.append(i == 0 ? "" : ",").append(job(0));
      }
      if (slowMs > 0) {
        body.append(',').append(job(slowMs));
      }
      body.append("]}");
      submit(api + "/api/v1/jobs/batch", body.toString(), true);
      submit(api + "/api/v1/jobs", job(0), false);
      try {
        Thread.sleep(period);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private String job(int ms) {
    ObjectNode node = JSON.createObjectNode();
    node.put("type", "http");
    node.putObject("payload").put("kind", ms > 0 ? "slow" : "quick").put("ms", ms);
    node.putObject("callback").put("url", callback);
    node.put("maxAttempts", 10);
    node.putObject("backoff").put("strategy", "fixed").put("delay", "PT1S");
    return node.toString();
  }

  private void submit(String url, String body, boolean batch) {
    Round into = round;
    String answer;
    try {
      HttpResponse<String> response = send(url, body);
      String type = response.headers().firstValue("Content-Type").orElse("");
      if (response.statusCode() == 201) {
        JsonNode json = JSON.readTree(response.body());
        if (batch) {
          for (JsonNode item : json.get("items")) {
            into.accepted().add(UUID.fromString(item.get("id").asText()));
          }
        } else {
          into.accepted().add(UUID.fromString(json.get("id").asText()));
        }
        answer = "201";
      } else if (response.statusCode() == 503 && type.startsWith("application/problem+json")) {
        answer = "503 problem+json";
      } else {
        answer = response.statusCode() + " " + type;
      }
    } catch (IOException e) {
      answer = "no answer";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    into.answers().computeIfAbsent(answer, k -> new AtomicInteger()).incrementAndGet();
  }

  /** Stops submitting, after the submit in flight. */
  @Override
  public void close() {
    running.set(false);
    try {
      thread.join(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
