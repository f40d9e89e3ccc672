package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.store.namespace.Quota;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.builtin.SleepHandler;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No namespace holds every slot: a namespace's {@code maxRunning} caps its attempts across workers
 * while the other namespaces' jobs start beside its backlog, and its {@code maxTimeout} cuts its
 * attempts short. Two workers on the real PostgreSQL and Redis.
 */
class NamespaceCapIT {
  private static final int CAP = 3;

  private final WorkerHarness harness = new WorkerHarness();
  private final Held handler = new Held();

  @AfterEach
  void close() {
    handler.release.countDown();
    harness.close();
  }

  /** Holds its slot until released; counts how many of each namespace run at once. */
  private static final class Held implements JobHandler {
    final CountDownLatch release = new CountDownLatch(1);
    final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> most = new ConcurrentHashMap<>();
    final Map<UUID, Instant> started = new ConcurrentHashMap<>();

    @Override
    public String type() {
      return "held";
    }

    @Override
    public JobResult handle(JobContext ctx) throws InterruptedException {
      started.put(ctx.jobId(), Instant.now());
      AtomicInteger now = running.computeIfAbsent(ctx.namespace(), n -> new AtomicInteger());
      int n = now.incrementAndGet();
      most.computeIfAbsent(ctx.namespace(), k -> new AtomicInteger())
          .accumulateAndGet(n, Math::max);
      try {
        // the "hog" namespace's jobs hold their slots until released; the others end at once
        if (ctx.namespace().equals("hog")) {
          release.await();
        }
        return JobResult.success();
      } finally {
        now.decrementAndGet();
      }
    }

    int running(String ns) {
      AtomicInteger n = running.get(ns);
      return n == null ? 0 : n.get();
    }

    int most(String ns) {
      AtomicInteger n = most.get(ns);
      return n == null ? 0 : n.get();
    }
  }

  private WorkerSettings settings() {
    WorkerSettings settings = WorkerHarness.settings();
    settings.namespaces = List.of("hog", "other");
    settings.concurrency = 8;
    return settings;
  }

  @Test
  void aCappedNamespacesBacklogRunsAtMostItsCapAcrossWorkersAndOthersStartBesideIt() {
    harness.stores.namespaces().create("hog", new Quota(null, null, null, null, CAP, null));
    harness.stores.namespaces().create("other", Quota.UNLIMITED);
    Instant due = Instant.now().minusSeconds(1);
    List<NewJob> hog = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      hog.add(aJob().namespace("hog").type("held").runAt(due).build());
    }
    harness.submit(hog);
    harness.start(settings(), new JobHandlers().register(handler));
    harness.startSeparate(settings(), new JobHandlers().register(handler), new MetricRegistry());

    await().atMost(Duration.ofSeconds(10)).until(() -> handler.running("hog") == CAP);

    // 16 slots, 3 held by hog: the other namespace's jobs start at once, again and again
    List<Job> others = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      others.add(harness.submit(aJob().namespace("other").type("held").build()));
    }
    for (Job j : others) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(10));
    }
    assertThat(harness.stores.namespaces().countPending("hog", 1_000)).isEqualTo(200 - CAP);
    assertThat(handler.most("hog")).as("hog's attempts at once, both workers").isEqualTo(CAP);
    assertThat(harness.count("SELECT count(*) FROM namespace_slots")).isEqualTo(CAP);

    // freed slots go to hog's next jobs, and never more than the cap
    handler.release.countDown();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> harness.stores.namespaces().countPending("hog", 1_000) == 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> harness.count("SELECT count(*) FROM namespace_slots") == 0);
    assertThat(handler.most("hog")).isEqualTo(CAP);
    assertThat(harness.count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'"))
        .isEqualTo(200 + 20);
  }

  @Test
  void aNamespacesMaxTimeoutCutsItsAttemptsShortWhateverTheirOwnTimeout() {
    harness
        .stores
        .namespaces()
        .create("hog", new Quota(null, null, null, null, null, Duration.ofMillis(300)));
    JobHandlers handlers = new JobHandlers().register(new SleepHandler());
    harness.start(settings(), handlers);

    Job own =
        harness.submit(
            aJob()
                .namespace("hog")
                .type("sleep")
                .payload(Json.readTree("{\"ms\":20000}"))
                .timeout(Duration.ofMinutes(5))
                .maxAttempts(1)
                .build());
    Job none =
        harness.submit(
            aJob()
                .namespace("hog")
                .type("sleep")
                .payload(Json.readTree("{\"ms\":20000}"))
                .maxAttempts(1)
                .build());
    Job other =
        harness.submit(
            aJob()
                .namespace("other")
                .type("sleep")
                .payload(Json.readTree("{\"ms\":600}"))
                .timeout(Duration.ofMinutes(5))
                .maxAttempts(1)
                .build());

    for (Job j : List.of(own, none)) {
      Job failed = harness.awaitState(j, JobState.FAILED, Duration.ofSeconds(10));
      assertThat(failed.lastError()).isEqualTo("timed out after PT0.3S");
      assertThat(harness.executions(j))
          .extracting(Execution::status)
          .containsExactly(ExecutionStatus.TIMED_OUT);
    }
    harness.awaitState(other, JobState.SUCCEEDED, Duration.ofSeconds(10));
  }

  @Test
  void sleepLongerThanAnHourFailsAtOnce() {
    harness.start(settings(), new JobHandlers().register(new SleepHandler()));
    Job job =
        harness.submit(
            aJob()
                .namespace("other")
                .type("sleep")
                .payload(Json.readTree("{\"ms\":" + (SleepHandler.MAX_MS + 1) + "}"))
                .build());
    Job failed = harness.awaitState(job, JobState.FAILED);
    assertThat(failed.attempt()).isEqualTo(1);
    assertThat(failed.lastError()).contains("at most 3600000");
  }
}
