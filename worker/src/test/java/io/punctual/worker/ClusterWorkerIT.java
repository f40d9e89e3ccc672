package io.punctual.worker;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.lettuce.core.cluster.SlotHash;
import io.punctual.embedded.LocalRedisCluster;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two workers on a real Redis Cluster (3 masters, 3 replicas) with the queue in 3 shards, while the
 * cluster fails over a master, migrates a slot of the queue and loses a master to SIGKILL: every
 * accepted job runs to SUCCEEDED, none is stuck, and a job runs twice only where an attempt of it
 * was recorded LOST.
 */
class ClusterWorkerIT {
  private static final int BATCHES = 8;
  private static final int PER_BATCH = 250;

  @Test
  void noAcceptedJobIsLostOrStuckThroughAFailoverASlotMigrationAndAKilledMaster() {
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      RedisSettings redis = TestRedis.newRedis();
      redis.cluster = cluster.seeds();
      redis.queueShards = 3;
      try (WorkerHarness harness = new WorkerHarness(new QueueSettings(), redis)) {
        WorkerSettings s1 = WorkerHarness.settings();
        WorkerSettings s2 = WorkerHarness.settings();
        harness.startSeparate(s1, harness.builtIns(s1), metrics());
        harness.startSeparate(s2, harness.builtIns(s2), metrics());
        int slot0 = SlotHash.getSlot(harness.stores.keys().queue("default", Priority.LOW, 0));
        int slot1 = SlotHash.getSlot(harness.stores.keys().queue("default", Priority.LOW, 1));
        int slot2 = SlotHash.getSlot(harness.stores.keys().queue("default", Priority.LOW, 2));

        for (int batch = 0; batch < BATCHES; batch++) {
          List<NewJob> jobs = new ArrayList<>();
          for (int i = 0; i < PER_BATCH; i++) {
            jobs.add(aJob().type("noop").runAt(Instant.now()).build());
          }
          submitWithRetry(harness, jobs);
          switch (batch) {
            case 2 -> cluster.failover(cluster.masterOf(slot1));
            case 4 -> {
              int to = -1;
              for (int m : cluster.masterPorts()) {
                if (m != cluster.masterOf(slot2)) {
                  to = m;
                }
              }
              cluster.migrateSlot(slot2, to);
            }
            case 6 -> cluster.killMaster(cluster.masterOf(slot0));
            default -> {}
          }
        }
        int total = BATCHES * PER_BATCH;
        await()
            .atMost(Duration.ofSeconds(180))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    harness.count("SELECT count(*) FROM jobs WHERE status = 'SUCCEEDED'") == total);
        assertThat(harness.count("SELECT count(*) FROM jobs")).isEqualTo(total);
        assertThat(
                harness.count(
                    "SELECT count(DISTINCT job_id) FROM job_executions WHERE status = 'SUCCEEDED'"))
            .isEqualTo(total);
        // a job ran more than once only where an attempt of it was recorded LOST
        assertThat(
                harness.count(
                    "SELECT count(*) FROM (SELECT job_id FROM job_executions GROUP BY job_id"
                        + " HAVING count(*) > 1 AND count(*) FILTER (WHERE status = 'LOST') = 0) d"))
            .isZero();
      }
    }
  }

  private static MetricRegistry metrics() {
    return new MetricRegistry();
  }

  /**
   * The API's submit: stored in PostgreSQL, then enqueued; an enqueue refused mid-failover is
   * retried (the reaper's reconcile would repair it otherwise).
   */
  private static void submitWithRetry(WorkerHarness harness, List<NewJob> jobs) {
    List<io.punctual.model.Job> stored =
        harness.stores.submissions().submit(jobs).stream()
            .map(io.punctual.store.JobSubmissions.Submitted::job)
            .toList();
    List<io.punctual.model.QueueEntry> entries = new ArrayList<>();
    for (var j : stored) {
      entries.add(new io.punctual.model.QueueEntry(j.id(), j.namespace(), j.priority(), j.runAt()));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              harness.stores.queue().enqueue(entries);
              return true;
            });
  }
}
