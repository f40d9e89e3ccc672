package io.punctual.reaper;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.embedded.LocalRedisCluster;
import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reaper's reconcile on a real Redis Cluster (3 masters, 3 replicas) with a sharded queue:
 * missing PENDING jobs are re-added each into its own shard, stale entries are found on every
 * master and removed, shard by shard.
 */
class ClusterReconcileIT {
  private static LocalRedisCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = LocalRedisCluster.start();
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static RedisSettings sharded(int shards) {
    RedisSettings settings = TestRedis.newRedis();
    settings.cluster = cluster.seeds();
    settings.queueShards = shards;
    return settings;
  }

  @Test
  void reconcileRepairsEveryShardInBothDirections() {
    try (ReaperFixture f = new ReaperFixture(sharded(3))) {
      Reconciler reconciler = f.reconciler();
      Priority[] priorities = Priority.values();
      List<NewJob> lost = new ArrayList<>();
      List<NewJob> queued = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        lost.add(aJob().runAt(f.clock.instant()).priority(priorities[i % 4]).build());
        queued.add(aJob().runAt(f.clock.instant()).priority(priorities[i % 4]).build());
      }
      // committed, but never enqueued (the API died, or a master lost them in a failover)
      List<Job> missing = f.store(lost);
      List<Job> present = f.submit(queued);
      Set<Integer> shards = new HashSet<>();
      for (Job job : missing) {
        shards.add(f.stores.keys().shardOf(job.id()));
        assertThat(f.queued(job)).isFalse();
      }
      assertThat(shards).as("the lost jobs belong to every shard").hasSize(3);
      // cancelled in PostgreSQL while their Redis removal failed
      List<Job> cancelled = present.subList(0, 20);
      for (Job job : cancelled) {
        f.stores.transitions().cancel("default", job.id());
      }
      f.clock.advance(Duration.ofSeconds(11));

      Reconciler.Repairs repairs = reconciler.runOnce();

      assertThat(repairs).isEqualTo(new Reconciler.Repairs(40, 20));
      for (Job job : missing) {
        assertThat(f.queued(job)).as("re-added into its shard").isTrue();
      }
      for (Job job : cancelled) {
        assertThat(f.queued(job)).isFalse();
      }
      for (Job job : present.subList(20, 40)) {
        assertThat(f.queued(job)).isTrue();
      }
      assertThat(reconciler.runOnce()).as("idempotent").isEqualTo(new Reconciler.Repairs(0, 0));
    }
  }
}
