package io.punctual.worker.limit;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.common.json.Json;
import io.punctual.embedded.LocalRedisCluster;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.model.Completion;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.queue.limit.LimitKeys;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.queue.testing.TestRedis;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.Limit;
import io.punctual.worker.WorkerHarness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Limits on a real Redis Cluster (3 masters, 3 replicas) with the queue in 3 shards: a job a limit
 * holds waits in the hold set of its own queue shard (on that shard's slot) and goes back to that
 * shard's queue when a slot is released or its type resumed; two workers run a concurrency-limited
 * type to the end without ever running more than the limit at once.
 */
class ClusterLimitsIT {
  private static final int SHARDS = 3;
  private static final int CONCURRENCY = 3;

  @Test
  void heldJobsWaitAndGoBackInTheirOwnShardAndTheLimitHoldsOnTheCluster() throws Exception {
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      RedisSettings redis = TestRedis.newRedis();
      redis.cluster = cluster.seeds();
      redis.queueShards = SHARDS;
      try (WorkerHarness harness = new WorkerHarness(new QueueSettings(), redis)) {
        heldJobsGoBackToTheirOwnShard(harness);
        workersKeepTheLimitAndFinishEveryJob(harness);
      }
    }
  }

  /** The claim statement and the Redis side driven by hand, so every step can be looked at. */
  private static void heldJobsGoBackToTheirOwnShard(WorkerHarness harness) {
    harness
        .stores
        .limits()
        .put(new Limit("default", "one", "one", "customerId", 1, null, false, false, null, null));
    RedisKeys keys = harness.stores.keys();
    LimitHolds holds = harness.stores.holds();
    LimitKeys limitKeys = holds.keys();
    String field = LimitKeys.field("one", "a");

    // Stored only (not queued): where each job is in Redis is then up to the limits alone.
    List<Job> jobs = store(harness, "one", "a", 30);
    Set<Integer> shardsUsed = new HashSet<>();
    jobs.forEach(j -> shardsUsed.add(keys.shardOf(j.id())));
    assertThat(shardsUsed).as("30 jobs over 3 shards").hasSize(SHARDS);

    ClaimOutcome outcome =
        harness.stores.transitions().claimJudged(jobs.stream().map(Job::id).toList(), "w-test");
    assertThat(outcome.claimed()).hasSize(1);
    assertThat(outcome.refused()).hasSize(29);
    Job running = outcome.claimed().get(0);
    holds.taken("default", outcome.slots(), Map.of(running.id(), running.attempt()));
    assertThat(holds.hold("default", outcome.refused())).isZero();

    // Each refused job waits in its own shard's hold set and index, on that shard's slot.
    for (ClaimOutcome.Refusal r : outcome.refused()) {
      UUID id = r.job().id();
      int shard = keys.shardOf(id);
      for (int s = 0; s < SHARDS; s++) {
        Double score =
            harness
                .stores
                .redis()
                .sync()
                .zscore(limitKeys.hold("default", s, field), id.toString());
        assertThat(score != null)
            .as("job %s (shard %d) in hold set of shard %d", id, shard, s)
            .isEqualTo(s == shard);
      }
      assertThat(
              harness.stores.redis().sync().hget(limitKeys.where("default", shard), id.toString()))
          .isEqualTo(limitKeys.hold("default", shard, field));
    }
    assertThat(holds.waiting("default", field)).isEqualTo(29);

    // The release moves one held job back, into its own shard's queue and no other.
    assertThat(harness.stores.transitions().finish(List.of(succeeded(running))).applied())
        .hasSize(1);
    assertThat(
            holds.released(
                "default", List.of(new LimitHolds.Holder(running.id(), running.attempt()))))
        .isEqualTo(1);
    assertThat(holds.waiting("default", field)).isEqualTo(28);
    List<UUID> queued = queuedAnywhere(harness, jobs);
    assertThat(queued).hasSize(1);
    assertInOwnShardOnly(harness, queued.get(0));

    // A paused type: its jobs wait per shard and a resume puts each back in its own shard.
    harness.stores.limits().pause("default", "stopped");
    List<Job> stopped = store(harness, "stopped", "a", 12);
    ClaimOutcome paused =
        harness.stores.transitions().claimJudged(stopped.stream().map(Job::id).toList(), "w-test");
    assertThat(paused.claimed()).isEmpty();
    holds.hold("default", paused.refused());
    assertThat(holds.waitingPaused("default", "stopped")).isEqualTo(12);
    harness.stores.limits().resume("default", "stopped");
    assertThat(holds.resume("default", "stopped")).isEqualTo(12);
    for (Job j : stopped) {
      assertInOwnShardOnly(harness, j.id());
    }
    // The rest of key a's held jobs: the limit goes, they go back to their shards and the
    // workers of the second part run them with the rest.
    harness.stores.limits().delete("default", "one");
    for (int s = 0; s < SHARDS; s++) {
      holds.drain("default", s, limitKeys.hold("default", s, field), 100);
    }
    assertThat(holds.waiting("default", field)).isZero();
    for (Job j : jobs) {
      if (!j.id().equals(running.id())) {
        assertInOwnShardOnly(harness, j.id());
      }
    }
  }

  private static void workersKeepTheLimitAndFinishEveryJob(WorkerHarness harness) throws Exception {
    harness
        .stores
        .limits()
        .put(
            new Limit(
                "default",
                "slow",
                "slow",
                "customerId",
                CONCURRENCY,
                null,
                false,
                false,
                null,
                null));
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    JobHandler slow =
        new JobHandler() {
          @Override
          public String type() {
            return "slow";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            try {
              Thread.sleep(20);
            } finally {
              now.decrementAndGet();
            }
            return JobResult.success();
          }
        };
    JobHandlers handlers =
        new JobHandlers().register(slow).register(noop("one")).register(noop("stopped"));
    WorkerSettings a = WorkerHarness.settings();
    a.concurrency = 8;
    WorkerSettings b = WorkerHarness.settings();
    b.concurrency = 8;
    harness.start(a, handlers);
    harness.startSeparate(b, handlers, new com.codahale.metrics.MetricRegistry());

    // A sampler: every queue entry and every held job seen is in its own shard.
    RedisKeys keys = harness.stores.keys();
    LimitKeys limitKeys = harness.stores.holds().keys();
    String field = LimitKeys.field("slow", "a");
    Map<String, Integer> misplaced = new ConcurrentHashMap<>();
    Set<Integer> heldIn = ConcurrentHashMap.newKeySet();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler =
        Thread.ofVirtual()
            .start(
                () -> {
                  while (sampling.get()) {
                    for (int s = 0; s < SHARDS; s++) {
                      List<String> seen = new ArrayList<>();
                      for (String q : keys.queues("default", s)) {
                        seen.addAll(harness.stores.redis().sync().zrange(q, 0, -1));
                      }
                      List<String> held =
                          harness
                              .stores
                              .redis()
                              .sync()
                              .zrange(limitKeys.hold("default", s, field), 0, -1);
                      if (!held.isEmpty()) {
                        heldIn.add(s);
                      }
                      seen.addAll(held);
                      for (String id : seen) {
                        if (keys.shardOf(UUID.fromString(id)) != s) {
                          misplaced.put(id, s);
                        }
                      }
                    }
                    try {
                      Thread.sleep(5);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });

    List<Job> jobs = new ArrayList<>();
    for (int batch = 0; batch < 4; batch++) {
      jobs.addAll(harness.submit(newJobs("slow", "a", 40)));
    }
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  harness.count(
                          "SELECT count(*) FROM jobs WHERE type = 'slow' AND status = 'SUCCEEDED'")
                      == jobs.size());
    } finally {
      sampling.set(false);
      sampler.join();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> harness.count("SELECT count(*) FROM jobs WHERE status <> 'SUCCEEDED'") == 0);
    assertThat(harness.mostOverlapping(jobs)).isLessThanOrEqualTo(CONCURRENCY);
    assertThat(most.get()).isLessThanOrEqualTo(CONCURRENCY);
    assertThat(misplaced).as("entries seen outside their shard").isEmpty();
    assertThat(heldIn).as("shards whose hold set held jobs").hasSize(SHARDS);
    assertThat(harness.count("SELECT count(*) FROM limit_slots")).isZero();
    assertThat(
            harness.count(
                "SELECT count(*) FROM job_executions e JOIN jobs j ON j.id = e.job_id"
                    + " WHERE j.type = 'slow' AND e.status = 'SUCCEEDED'"))
        .isEqualTo(jobs.size());
  }

  private static List<NewJob> newJobs(String type, String customer, int n) {
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(
          aJob()
              .type(type)
              .payload(Json.readTree("{\"customerId\":\"" + customer + "\"}"))
              .runAt(Instant.now())
              .build());
    }
    return jobs;
  }

  private static List<Job> store(WorkerHarness harness, String type, String customer, int n) {
    return harness.stores.submissions().submit(newJobs(type, customer, n)).stream()
        .map(Submitted::job)
        .toList();
  }

  /** The jobs of {@code jobs} found in any queue of any shard. */
  private static List<UUID> queuedAnywhere(WorkerHarness harness, List<Job> jobs) {
    Set<String> all = new HashSet<>();
    for (int s = 0; s < SHARDS; s++) {
      for (String q : harness.stores.keys().queues("default", s)) {
        all.addAll(harness.stores.redis().sync().zrange(q, 0, -1));
      }
    }
    return jobs.stream().map(Job::id).filter(id -> all.contains(id.toString())).toList();
  }

  private static void assertInOwnShardOnly(WorkerHarness harness, UUID id) {
    RedisKeys keys = harness.stores.keys();
    int shard = keys.shardOf(id);
    Map<Integer, Boolean> in = new HashMap<>();
    for (int s = 0; s < SHARDS; s++) {
      boolean found = false;
      for (Priority p : Priority.values()) {
        found |=
            harness.stores.redis().sync().zscore(keys.queue("default", p, s), id.toString())
                != null;
      }
      in.put(s, found);
    }
    assertThat(in).as("job %s of shard %d", id, shard).containsEntry(shard, true);
    assertThat(in.values().stream().filter(b -> b).count()).isEqualTo(1);
  }

  private static JobHandler noop(String type) {
    return new JobHandler() {
      @Override
      public String type() {
        return type;
      }

      @Override
      public JobResult handle(JobContext ctx) {
        return JobResult.success();
      }
    };
  }

  private static Completion succeeded(Job job) {
    return new Completion(
        job.id(),
        job.attempt(),
        JobState.SUCCEEDED,
        null,
        ExecutionStatus.SUCCEEDED,
        Instant.now(),
        1,
        null,
        null,
        null,
        null);
  }
}
