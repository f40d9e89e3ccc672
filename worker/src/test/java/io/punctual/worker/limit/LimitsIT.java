package io.punctual.worker.limit;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.RetryAfterException;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.store.limit.Limit;
import io.punctual.worker.WorkerHarness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Limits with real workers, PostgreSQL and Redis. */
class LimitsIT {
  private final WorkerHarness harness = new WorkerHarness();

  @AfterEach
  void close() {
    harness.close();
  }

  /** Sleeps, counting how many of its type run at once (the highest count seen). */
  static final class Sleeper implements JobHandler {
    private final String type;
    private final Duration sleep;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();

    Sleeper(String type, Duration sleep) {
      this.type = type;
      this.sleep = sleep;
    }

    @Override
    public String type() {
      return type;
    }

    @Override
    public JobResult handle(JobContext ctx) throws Exception {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        Thread.sleep(sleep);
      } finally {
        running.decrementAndGet();
      }
      return JobResult.success();
    }
  }

  private void limit(String type, String key, Integer concurrency, Limit.Rate rate, boolean slow) {
    harness
        .stores
        .limits()
        .put(new Limit("default", type, type, key, concurrency, rate, slow, false, null, null));
  }

  private List<Job> submit(String type, String customer, int n) {
    List<io.punctual.model.NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(
          aJob()
              .type(type)
              .payload(Json.readTree("{\"customerId\":\"" + customer + "\"}"))
              .runAt(Instant.now())
              .build());
    }
    return harness.submit(jobs);
  }

  @Test
  void twoWorkersRunAtMostConcurrencyPerKeyAndUnlimitedJobsPassTheQueue() {
    limit("slow", "customerId", 2, null, false);
    // 40 jobs two at a time for 150 ms: the saturated key needs 3 s at the least, so the check
    // below (most of them not started when the unlimited jobs are done) holds on a loaded machine.
    Sleeper slow = new Sleeper("slow", Duration.ofMillis(150));
    Sleeper fast = new Sleeper("fast", Duration.ZERO);
    JobHandlers handlers = new JobHandlers().register(slow).register(fast);
    WorkerSettings a = WorkerHarness.settings();
    a.concurrency = 8;
    WorkerSettings b = WorkerHarness.settings();
    b.concurrency = 8;
    harness.start(a, handlers);
    harness.startSeparate(b, handlers, new com.codahale.metrics.MetricRegistry());

    List<Job> saturated = submit("slow", "a", 40);
    List<Job> other = submit("slow", "b", 4);
    List<Job> free = submit("fast", "a", 10);

    for (Job j : free) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(10));
    }
    // The unlimited jobs behind 40 jobs of a saturated key did not wait for them: when the last
    // of them ended, most of the saturated key's jobs had not started (the machine's speed aside).
    long notStarted =
        saturated.stream().filter(j -> harness.find(j).status() == JobState.PENDING).count();
    assertThat(notStarted).isGreaterThan(saturated.size() / 2);
    for (Job j : saturated) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(30));
    }
    for (Job j : other) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(10));
    }
    assertThat(harness.mostOverlapping(saturated)).isLessThanOrEqualTo(2);
    assertThat(harness.mostOverlapping(other)).isLessThanOrEqualTo(2);
    // Key b did not wait for key a: its 4 jobs ran beside a's.
    assertThat(slow.most.get()).isGreaterThan(2);
    assertThat(harness.count("SELECT count(*) FROM limit_slots")).isZero();
  }

  @Test
  void aRateLimitSpacesStartsAndARetryAfterRestsTheWholeKey() {
    limit("call", "customerId", null, new Limit.Rate(20, Duration.ofSeconds(1), 1), false);
    Sleeper call = new Sleeper("call", Duration.ZERO);
    WorkerSettings s = WorkerHarness.settings();
    s.concurrency = 8;
    harness.start(s, new JobHandlers().register(call));

    List<Job> jobs = submit("call", "a", 10);
    for (Job j : jobs) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(10));
    }
    // The limiter grants starts: the claim statement's time, kept as the job row's started_at.
    // 10 starts at 20 a second, no burst: at least 9 intervals of 50 ms between the first grant
    // and the last (less 1 ms for the reservations' whole milliseconds).
    List<Instant> granted = new ArrayList<>();
    List<Instant> handled = new ArrayList<>();
    for (Job j : jobs) {
      granted.add(harness.find(j).startedAt());
      handled.add(harness.executions(j).get(0).startedAt());
    }
    granted.sort(null);
    handled.sort(null);
    assertThat(Duration.between(granted.get(0), granted.get(9)))
        .isGreaterThanOrEqualTo(Duration.ofMillis(9 * 50 - 1));
    // A handler never starts before its grant (JobExecutor waits for it, as for runAt); how long
    // after it depends on the machine (a first dispatch in a fresh worker is slower), so the
    // handlers' own spread is not what the limiter promises. Less 1 ms: execution start times
    // are whole milliseconds (the end less the duration).
    for (int i = 0; i < 10; i++) {
      assertThat(handled.get(i)).isAfterOrEqualTo(granted.get(i).minusMillis(1));
    }
  }

  @Test
  void aRetryAfterRestsItsKeyWhenTheLimitSaysSo() {
    limit("flaky", "customerId", 4, null, true);
    ConcurrentHashMap<String, Instant> firstTry = new ConcurrentHashMap<>();
    List<Instant> starts = new java.util.concurrent.CopyOnWriteArrayList<>();
    JobHandler flaky =
        new JobHandler() {
          @Override
          public String type() {
            return "flaky";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            starts.add(Instant.now());
            if (firstTry.putIfAbsent("a", Instant.now()) == null) {
              throw new RetryAfterException(Duration.ofSeconds(2), "slow down");
            }
            return JobResult.success();
          }
        };
    WorkerSettings s = WorkerHarness.settings();
    s.concurrency = 1;
    harness.start(s, new JobHandlers().register(flaky));
    List<Job> jobs = submit("flaky", "a", 3);
    for (Job j : jobs) {
      harness.awaitState(j, JobState.SUCCEEDED, Duration.ofSeconds(15));
    }
    // After the first attempt asked for 2 s, no job of the key started within those 2 s.
    Instant asked = firstTry.get("a");
    assertThat(starts)
        .filteredOn(t -> t.isAfter(asked))
        .allSatisfy(t -> assertThat(t).isAfterOrEqualTo(asked.plusMillis(1_900)));
  }

  @Test
  void aPausedTypeWaitsAndResumes() {
    harness.stores.limits().pause("default", "slow");
    Sleeper slow = new Sleeper("slow", Duration.ZERO);
    Sleeper fast = new Sleeper("fast", Duration.ZERO);
    harness.start(WorkerHarness.settings(), new JobHandlers().register(slow).register(fast));
    List<Job> paused = submit("slow", "a", 3);
    List<Job> free = submit("fast", "a", 3);
    for (Job j : free) {
      harness.awaitState(j, JobState.SUCCEEDED);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                harness.stores.holds().size(harness.stores.holds().keys().paused("default", "slow"))
                    == 3);
    assertThat(paused)
        .allSatisfy(j -> assertThat(harness.find(j).status()).isEqualTo(JobState.PENDING));
    harness.stores.limits().resume("default", "slow");
    harness.stores.holds().resume("default", "slow");
    for (Job j : paused) {
      harness.awaitState(j, JobState.SUCCEEDED);
    }
  }
}
