package io.punctual.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.punctual.common.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The operations console's REST calls on the loaded store, over HTTP against a {@code punctual api}
 * process: each page's calls timed (p50, p95 and max of repeated runs, after a first run reported
 * apart), the admin port's Prometheus scrape, and ten browser tabs polling what the console polls
 * at its interval (5 s; the overview's statistics every sixth poll), with the CPU PostgreSQL spends
 * meanwhile against an idle window of the same length.
 */
final class ScaleConsole {
  /** The console's poll interval (app.js POLL_MS). */
  static final long POLL_MS = 5_000;

  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final String base;
  private final String adminBase;
  private final String namespace;
  private final AtomicLong errors = new AtomicLong();

  ScaleConsole(PunctualProcesses.Role api, String namespace) {
    this.base = "http://127.0.0.1:" + api.httpPort() + "/api/v1";
    this.adminBase = "http://127.0.0.1:" + api.adminPort();
    this.namespace = namespace;
  }

  /** A call of a page: its label (the path with placeholders) and the path it requests now. */
  record Call(String page, String label, Supplier<String> path) {
    static Call of(String page, String path) {
      return new Call(page, path, () -> path);
    }
  }

  /** The answer of one call: its status and body. */
  record Reply(int status, String body) {
    JsonNode json() {
      try {
        return Json.mapper().readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + body, e);
      }
    }
  }

  Reply get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  Reply post(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              request
                  .header("Authorization", "Bearer " + BenchSupport.API_KEY)
                  .header("Punctual-Namespace", namespace)
                  .header("Accept", "application/json")
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body());
    } catch (IOException e) {
      throw new IllegalStateException("request failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** [from, to) of the last {@code d}, as the console sends it (to: now, to the millisecond). */
  static String range(Duration d) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    return "from=" + enc(now.minus(d).toString()) + "&to=" + enc(now.toString());
  }

  /**
   * Times each call: a first run (reported apart: caches of the server, JIT), then {@code reps}
   * runs, of which p50, p95 and max. Every answer must be 200.
   */
  ArrayNode time(List<Call> calls, int reps) {
    ArrayNode out = Json.mapper().createArrayNode();
    System.out.printf(
        Locale.ROOT,
        "%n%-10s %-70s %8s %8s %8s %8s %7s%n",
        "page",
        "call",
        "first",
        "p50 ms",
        "p95 ms",
        "max ms",
        "items");
    for (Call c : calls) {
      // The path first: a later page's cursor is found by walking the pages before it, untimed.
      String firstPath = c.path().get();
      long t = System.nanoTime();
      Reply first = get(firstPath);
      double firstMs = (System.nanoTime() - t) / 1e6;
      if (first.status() != 200) {
        throw new IllegalStateException(c.label() + " answered " + first.status() + ": " + first);
      }
      double[] ms = new double[reps];
      for (int i = 0; i < reps; i++) {
        long s = System.nanoTime();
        Reply r = get(c.path().get());
        ms[i] = (System.nanoTime() - s) / 1e6;
        if (r.status() != 200) {
          throw new IllegalStateException(c.label() + " answered " + r.status() + ": " + r);
        }
      }
      Arrays.sort(ms);
      JsonNode body = first.json();
      int items =
          body.has("items")
              ? body.get("items").size()
              : body.has("groups")
                  ? body.get("groups").size()
                  : body.has("points") ? body.get("points").size() : -1;
      ObjectNode r = out.addObject();
      r.put("page", c.page());
      r.put("call", c.label());
      r.put("firstMs", round(firstMs));
      r.put("p50Ms", round(quantile(ms, 0.50)));
      r.put("p95Ms", round(quantile(ms, 0.95)));
      r.put("maxMs", round(ms[ms.length - 1]));
      r.put("items", items);
      System.out.printf(
          Locale.ROOT,
          "%-10s %-70s %8.1f %8.1f %8.1f %8.1f %7s%n",
          c.page(),
          c.label().length() > 70 ? c.label().substring(0, 70) : c.label(),
          firstMs,
          quantile(ms, 0.50),
          quantile(ms, 0.95),
          ms[ms.length - 1],
          items < 0 ? "" : Integer.toString(items));
    }
    return out;
  }

  /** Scrapes not counted between the early and the steady series ({@link #scrape}). */
  static final int SCRAPE_WARMUP = 300;

  /**
   * {@code n} scrapes of the admin port's /prometheus, each paired with a GET of the admin port's
   * /ping (the same server, no work: the floor of a request on this machine now): first as the
   * process's early scrapes (after five not counted), then again after {@link #SCRAPE_WARMUP} more
   * (the steady state: a Prometheus scraping every 15 s has made those within 75 minutes of a
   * process's start, and the scrape's code is compiled by then); p50, p95, max of each.
   */
  ObjectNode scrape(int n) {
    ObjectNode out = Json.mapper().createObjectNode();
    for (int i = 0; i < 5; i++) {
      admin("/prometheus");
    }
    ObjectNode early = scrapes(n, "early (the process's first scrapes)");
    for (int i = 0; i < SCRAPE_WARMUP; i++) {
      admin("/prometheus");
    }
    ObjectNode steady = scrapes(n, "steady (after " + SCRAPE_WARMUP + " more)");
    out.setAll(steady);
    out.set("early", early);
    return out;
  }

  private ObjectNode scrapes(int n, String label) {
    double[] ms = new double[n];
    double[] ping = new double[n];
    int bytes = 0;
    for (int i = 0; i < n; i++) {
      long t = System.nanoTime();
      bytes = admin("/prometheus").length();
      ms[i] = (System.nanoTime() - t) / 1e6;
      t = System.nanoTime();
      admin("/ping");
      ping[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(ms);
    Arrays.sort(ping);
    ObjectNode out = Json.mapper().createObjectNode();
    out.put("scrapes", n);
    out.put("p50Ms", round(quantile(ms, 0.5)));
    out.put("p95Ms", round(quantile(ms, 0.95)));
    out.put("maxMs", round(ms[n - 1]));
    out.put("bytes", bytes);
    out.put("pingP50Ms", round(quantile(ping, 0.5)));
    out.put("pingMaxMs", round(ping[n - 1]));
    System.out.printf(
        Locale.ROOT,
        "%nPrometheus scrape, %s (admin port /prometheus, %d scrapes, %,d bytes): p50 %.1f ms, p95"
            + " %.1f ms, max %.1f ms; /ping alternated with it: p50 %.1f ms, max %.1f ms%n",
        label,
        n,
        bytes,
        quantile(ms, 0.5),
        quantile(ms, 0.95),
        ms[n - 1],
        quantile(ping, 0.5),
        ping[n - 1]);
    return out;
  }

  private String admin(String path) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(adminBase + path))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(path + " answered " + r.statusCode());
      }
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** What one tab polls: its refresh calls at poll number {@code tick} (0: the first render). */
  interface Tab {
    List<String> calls(int tick);
  }

  /**
   * The overview as overview.js polls it: queue depth and workers every poll; the two statistics
   * and the series at the first render and every sixth poll after.
   */
  static Tab overview() {
    return tick -> {
      List<String> calls = new ArrayList<>(List.of("/queues/depth", "/workers?limit=100"));
      if (tick % 6 == 0) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant to = now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
        calls.add("/stats?" + range(Duration.ofDays(1)) + "&groupBy=namespace");
        calls.add("/stats?" + range(Duration.ofHours(1)) + "&groupBy=namespace");
        calls.add(
            "/stats/series?from="
                + enc(to.minus(Duration.ofHours(3)).toString())
                + "&to="
                + enc(to.toString()));
      }
      return calls;
    };
  }

  /** A page that polls the same calls every time (jobs list, a job, workers...). */
  static Tab fixed(List<String> calls) {
    return tick -> calls;
  }

  /**
   * {@code tabs} polling for {@code seconds}, each from a random point of the first interval; the
   * CPU seconds of PostgreSQL and of the API over the window. Returns [postgres, api, requests].
   */
  double[] poll(List<Tab> tabs, int seconds, int postgresPort, long apiPid) throws Exception {
    AtomicLong requests = new AtomicLong();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    double pg0 = BenchSupport.postgresCpuSeconds(postgresPort);
    double api0 = BenchSupport.cpuSeconds(apiPid, false);
    List<Thread> threads = new ArrayList<>();
    for (Tab tab : tabs) {
      long offset = ThreadLocalRandom.current().nextLong(POLL_MS);
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      Thread.sleep(offset);
                      for (int tick = 0; System.nanoTime() < end; tick++) {
                        long next = System.nanoTime() + POLL_MS * 1_000_000L;
                        for (String path : tab.calls(tick)) {
                          Reply r = get(path);
                          requests.incrementAndGet();
                          if (r.status() != 200) {
                            errors.incrementAndGet();
                          }
                        }
                        long wait = (next - System.nanoTime()) / 1_000_000L;
                        if (wait > 0) {
                          Thread.sleep(wait);
                        }
                      }
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    double pg = BenchSupport.postgresCpuSeconds(postgresPort) - pg0;
    double api = BenchSupport.cpuSeconds(apiPid, false) - api0;
    if (errors.get() > 0) {
      throw new IllegalStateException(errors.get() + " polls did not answer 200");
    }
    return new double[] {pg, api, requests.get()};
  }

  /** An idle window of {@code seconds}: the CPU seconds of PostgreSQL and of the API. */
  static double[] idle(int seconds, int postgresPort, long apiPid) throws InterruptedException {
    double pg0 = BenchSupport.postgresCpuSeconds(postgresPort);
    double api0 = BenchSupport.cpuSeconds(apiPid, false);
    Thread.sleep(seconds * 1000L);
    return new double[] {
      BenchSupport.postgresCpuSeconds(postgresPort) - pg0,
      BenchSupport.cpuSeconds(apiPid, false) - api0,
      0
    };
  }

  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  static double round(double ms) {
    return Math.round(ms * 10) / 10.0;
  }
}
