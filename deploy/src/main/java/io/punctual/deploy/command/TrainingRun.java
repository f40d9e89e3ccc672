package io.punctual.deploy.command;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.store.JobSubmissions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code dev --train-jobs N}: the work of a training run for an ahead-of-time cache (the launcher's
 * {@code aot-cache}). Backlogs of jobs stored as the API stores them for the worker to drain (dev's
 * own, or a {@link TrainingWorker} that writes the worker's cache and is stopped after them), then
 * a few submits and reads through the running API; then asks the process to stop as a SIGTERM
 * would, so that the JVM writes the cache at its exit with what it learned of Punctual's hot paths
 * (the classes loaded and linked, the methods' profiles).
 */
final class TrainingRun {
  private static final Logger log = LoggerFactory.getLogger(TrainingRun.class);
  private static final int STORE_BATCH = 1_000;
  private static final int ROUND = 50_000;
  private static final Duration LIMIT = Duration.ofMinutes(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String api;
  private final String authorization;
  private final Stores stores;
  private final int jobs;
  private final TrainingWorker worker;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * @param api the application's base URL
   * @param authorization the value of the Authorization header, or null without authentication
   * @param worker the worker process that runs the jobs and writes its own cache, or null when
   *     dev's worker runs them
   */
  TrainingRun(String api, String authorization, Stores stores, int jobs, TrainingWorker worker) {
    this.api = api.endsWith("/") ? api.substring(0, api.length() - 1) : api;
    this.authorization = authorization;
    this.stores = stores;
    this.jobs = jobs;
    this.worker = worker;
  }

  /**
   * Submits the jobs and waits for them to succeed on a thread of its own, then tells {@code done}
   * whether they did.
   */
  void start(Consumer<Boolean> done) {
    Thread.ofPlatform()
        .daemon()
        .name("punctual-training")
        .start(
            () -> {
              boolean ok = false;
              try {
                run();
                log.info("training run done: {} jobs submitted and run", jobs);
                ok = true;
              } catch (Exception e) {
                log.error("training run failed", e);
              } finally {
                done.accept(ok);
              }
            });
  }

  private void run() throws IOException, InterruptedException {
    long before = succeeded();
    // A tenth of the jobs, up to 2,000, are submitted one by one through the API at the end.
    int single = Math.min(Math.min(jobs, 2_000), Math.max(1, jobs / 10));
    // The rest in rounds of up to ROUND jobs, stored as the API stores them (PostgreSQL, 1,000 a
    // transaction) but from this process's own stores, due at once, and handed to the Redis queue
    // only when the whole round is stored: the worker then drains a backlog of due jobs in full
    // claims, as it does under load or after an outage, which is what a new worker's cache is
    // for. (Jobs due ahead are claimed ahead and wait for their time in the worker instead.)
    for (int sent = 0; sent < jobs - single; ) {
      int round = Math.min(ROUND, jobs - single - sent);
      storeDueNow(sent, round);
      sent += round;
      awaitSucceeded(before + sent);
    }
    if (worker != null && !worker.finish()) {
      throw new IllegalStateException("the training worker did not write its cache");
    }
    // Then one by one (POST /jobs and a read of each) for the API's paths. A worker process of its
    // own has stopped by now and leaves these jobs pending: run by it as one-job claims, they made
    // its cache worse for the backlogs it is for (docs/performance-log.md, the twelfth machine).
    for (int i = 0; i < single; i++) {
      String id = idOf(post("/api/v1/jobs", job(i)));
      send(request("/api/v1/jobs/" + id).GET());
    }
    if (worker == null) {
      awaitSucceeded(before + jobs);
    }
  }

  /** Stores {@code n} no-op jobs due now, then hands them all to the Redis queue. */
  private void storeDueNow(int first, int n) {
    Instant runAt = Instant.now();
    List<QueueEntry> entries = new ArrayList<>(n);
    for (int done = 0; done < n; ) {
      int size = Math.min(STORE_BATCH, n - done);
      List<NewJob> batch = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        batch.add(
            NewJob.builder(NewJob.DEFAULT_NAMESPACE, "noop", runAt)
                .payload(JSON.createObjectNode().put("n", first + done + i))
                .build());
      }
      for (JobSubmissions.Submitted stored : stores.submissions().submit(batch)) {
        entries.add(QueueEntry.of(stored.job()));
      }
      done += size;
    }
    for (int i = 0; i < entries.size(); i += STORE_BATCH) {
      stores.queue().enqueue(entries.subList(i, Math.min(entries.size(), i + STORE_BATCH)));
    }
  }

  private static String job(int n) {
    return "{\"type\":\"noop\",\"payload\":{\"n\":" + n + "}}";
  }

  private void awaitSucceeded(long count) throws InterruptedException {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (succeeded() < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the jobs did not all run within " + LIMIT);
      }
      if (worker != null && worker.exited()) {
        throw new IllegalStateException("the training worker stopped");
      }
      Thread.sleep(100);
    }
  }

  private long succeeded() {
    return stores
        .database()
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'")
                    .mapTo(Long.class)
                    .one());
  }

  private String post(String path, String json) throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(30));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  private String send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          response.request().method()
              + " "
              + response.request().uri().getPath()
              + " answered "
              + response.statusCode());
    }
    return response.body();
  }

  private static String idOf(String json) throws IOException {
    return JSON.readTree(json).path("id").asText();
  }
}
