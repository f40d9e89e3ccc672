package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.lettuce.core.RedisClient;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Completion;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.queue.testing.RedisNodes;
import io.punctual.store.JobTransitions.Rescue;
import io.punctual.worker.complete.CompletionBatcher;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import io.punctual.worker.metrics.WorkerMetrics;
import io.punctual.worker.run.CompletionDecider;
import io.punctual.worker.run.FinishedAttempt;
import io.punctual.worker.run.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Workers on real PostgreSQL with leases on three independent redis-server processes: what a worker
 * does when the lock nodes lose their quorum, and how the attempt-number fence in PostgreSQL makes
 * a double grant in Redis harmless.
 */
class LockNodesWorkerIT {
  private final WorkerHarness harness = new WorkerHarness();
  private final RedisNodes nodes = RedisNodes.start(3);
  private final List<Stores> stores = new ArrayList<>();
  private final List<Worker> workers = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch started = new CountDownLatch(1);

  @AfterEach
  void close() {
    release.countDown();
    workers.forEach(Worker::close);
    stores.forEach(Stores::close);
    harness.close();
    nodes.close();
  }

  /** Stores whose leases are on the lock nodes (queues and rows are the harness's). */
  private Stores onLockNodes(Duration restartDelay) {
    RedisSettings redis = new RedisSettings(harness.redis.url, harness.redis.keyPrefix);
    redis.leaseNodes = nodes.urls();
    redis.leaseNodeRestartDelay = restartDelay;
    Stores s =
        new Stores(harness.postgres, redis, harness.queueSettings, Clock.systemUTC(), "lock-nodes");
    stores.add(s);
    return s;
  }

  /** Marks every running node as having kept its data for {@code age} (a node up for long). */
  private void agedBy(Duration age) {
    String marker = new RedisKeys(harness.redis.keyPrefix).leaseNodeDataSince();
    for (int i = 0; i < nodes.size(); i++) {
      RedisClient client = RedisClient.create(nodes.url(i));
      try (var c = client.connect()) {
        List<String> time = c.sync().time();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        c.sync().set(marker, Long.toString(nowMs - age.toMillis()));
      } finally {
        client.shutdown();
      }
    }
  }

  private static WorkerSettings settings() {
    WorkerSettings s = WorkerHarness.settings();
    s.leaseTtl = Duration.ofSeconds(1);
    s.heartbeatInterval = Duration.ofMillis(200);
    return s;
  }

  private Worker start(Stores on, WorkerSettings settings, MetricRegistry metrics) {
    JobHandlers handlers = harness.builtIns(settings);
    handlers.register(
        new JobHandler() {
          @Override
          public String type() {
            return "block";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            started.countDown();
            release.await();
            return JobResult.success();
          }
        });
    Worker w = new Worker(on, settings, handlers, metrics);
    workers.add(w);
    w.start();
    return w;
  }

  private static double leasesLost(MetricRegistry metrics) {
    for (MetricSnapshot m : JobMetrics.of(metrics).registry().scrape()) {
      if (m instanceof CounterSnapshot c
          && m.getMetadata().getName().equals("punctual_worker_leases_lost")) {
        return c.getDataPoints().isEmpty() ? 0 : c.getDataPoints().get(0).getValue();
      }
    }
    return 0;
  }

  /**
   * Two of three lock nodes die while a job runs: its lease cannot be renewed or taken back
   * (counted in punctual_worker_leases_lost), yet the attempt runs on and is recorded, since
   * PostgreSQL still has it current (the reaper takes back only attempts whose heartbeat stopped).
   * No new job is leased until the nodes are back and have waited out their restart delay.
   */
  @Test
  void withTheQuorumLostARunningAttemptFinishesUnderTheFenceAndNothingNewStarts() throws Exception {
    Duration delay = Duration.ofSeconds(1);
    Stores lockStores = onLockNodes(delay);
    agedBy(delay);
    MetricRegistry metrics = new MetricRegistry();
    start(lockStores, settings(), metrics);
    Job running = harness.submit(aJob().type("block").build());
    started.await();

    nodes.kill(1);
    nodes.kill(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> leasesLost(metrics) >= 1);
    Job waiting = harness.submit(aJob().type("noop").build());

    assertThat(harness.find(running).status()).isEqualTo(JobState.RUNNING);
    release.countDown();
    Job done = harness.awaitState(running, JobState.SUCCEEDED);
    assertThat(done.attempt()).isEqualTo(1);
    assertThat(harness.find(waiting).status()).isEqualTo(JobState.PENDING);

    // The delay counts from the first lease call that finds a node's data gone, which may come
    // before startAgain returns (it waits for the node to answer): time it from before the start.
    long back = System.nanoTime();
    nodes.startAgain(1);
    nodes.startAgain(2);
    // Back empty, they sit out their delay first (and say so in a gauge).
    var waitingNodes = metrics.getGauges().get("punctual.worker.lockNodesWaiting");
    await().atMost(Duration.ofSeconds(10)).until(() -> waitingNodes.getValue().equals(2));
    Job later = harness.awaitState(waiting, JobState.SUCCEEDED, Duration.ofSeconds(30));
    assertThat(later.attempt()).isEqualTo(1);
    assertThat(Duration.ofNanos(System.nanoTime() - back)).isGreaterThanOrEqualTo(delay);
  }

  /**
   * With no restart delay a lock node that restarted empty lets a second worker lease a job whose
   * first worker still believes it holds it: a double grant. PostgreSQL's attempt number keeps it
   * harmless: the second worker's claim is attempt 2, and the first worker's result for attempt 1
   * is refused.
   */
  @Test
  void aDoubleGrantInRedisIsCaughtByTheAttemptFence() {
    Stores lockStores = onLockNodes(Duration.ZERO);
    Job job = harness.submit(aJob().type("noop").maxAttempts(3).build());

    // The stale worker: its lease on nodes 0 and 1 only (node 2 was down), attempt 1 in PostgreSQL.
    nodes.kill(2);
    harness.stores.queue().claim("default", 10, Instant.now());
    WorkerSettings staleSettings = settings();
    staleSettings.workerId = "stalled-worker";
    staleSettings.leaseTtl = Duration.ofMinutes(5);
    assertThat(
            lockStores
                .redlock()
                .acquire(List.of(job.id()), "stalled-worker", Duration.ofMinutes(5)))
        .containsExactly(job.id());
    Job stale = lockStores.transitions().claim(List.of(job.id()), "stalled-worker").get(0);
    assertThat(stale.attempt()).isEqualTo(1);

    // Node 1 restarts empty, node 2 comes back: the lease survives on node 0 alone. Its worker
    // stalls (no heartbeat): the reaper's two conditions hold, and it takes the attempt back.
    nodes.restartEmpty(1);
    nodes.startAgain(2);
    await().atMost(Duration.ofSeconds(30)).until(() -> !lockStores.redlock().isHeld(job.id()));
    Instant now = Instant.now();
    assertThat(
            lockStores
                .transitions()
                .rescue(
                    List.of(new Rescue(job.id(), 1, JobState.PENDING, now, "attempt 1 lost")),
                    now.plusSeconds(1))
                .applied())
        .containsExactly(job.id());
    lockStores.queue().enqueue(List.of(new QueueEntry(job.id(), "default", job.priority(), now)));

    // A live worker leases it on nodes 1 and 2, while node 0 still names the stalled worker.
    start(lockStores, settings(), new MetricRegistry());
    Job done = harness.awaitState(job, JobState.SUCCEEDED, Duration.ofSeconds(30));
    assertThat(done.attempt()).isEqualTo(2);
    assertThat(new RedisKeys(harness.redis.keyPrefix).lease(job.id()))
        .satisfies(
            key -> {
              RedisClient client = RedisClient.create(nodes.url(0));
              try (var c = client.connect()) {
                assertThat(c.sync().get(key)).isEqualTo("stalled-worker");
              } finally {
                client.shutdown();
              }
            });

    // The stalled worker wakes up and reports attempt 1: refused by the fence.
    MetricRegistry staleMetrics = new MetricRegistry();
    CompletionBatcher batcher =
        new CompletionBatcher(
            lockStores.clock(),
            Worker.completionStores(lockStores, Worker.slotHolders(lockStores, "stalled-worker")),
            staleSettings,
            new WorkerMetrics(staleMetrics));
    Outcome failed = Outcome.Failed.retryable("woke up late");
    Completion completion =
        new CompletionDecider(lockStores.clock(), new SplittableRandom()).decide(stale, failed, 5);
    assertThat(batcher.flush(List.of(new FinishedAttempt(stale, failed, completion)))).isEmpty();

    assertThat(staleMetrics.meter("punctual.worker.fenceRefused").getCount()).isEqualTo(1);
    Job after = harness.find(job);
    assertThat(after.status()).isEqualTo(JobState.SUCCEEDED);
    assertThat(after.attempt()).isEqualTo(2);
    assertThat(harness.executions(job))
        .extracting(Execution::status)
        .containsExactly(ExecutionStatus.LOST, ExecutionStatus.SUCCEEDED);
  }
}
