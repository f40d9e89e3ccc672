package io.punctual.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.punctual.embedded.LocalRedisCluster;
import io.punctual.model.JobId;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.queue.testing.TestRedis;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The queue on a real Redis Cluster (3 masters, 3 replicas, started by the test): sharded claims
 * keep the order of an unsharded queue, wake-ups reach a subscriber from every shard, the promoter
 * rebuilds after a failover, and a failover and a slot migration during a run lose nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterQueueIT {
  private static LocalRedisCluster cluster;
  private final TestClock clock = TestClock.at("2026-11-22T12:00:00Z");

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

  /** Settings of a cluster-backed queue with its own key prefix and {@code shards} shards. */
  private static RedisSettings settings(int shards) {
    RedisSettings settings = TestRedis.newRedis();
    settings.cluster = cluster.seeds();
    settings.queueShards = shards;
    return settings;
  }

  private List<QueueEntry> mixedDueEntries(int n, long seed) {
    Random random = new Random(seed);
    Priority[] priorities = Priority.values();
    List<QueueEntry> out = new ArrayList<>();
    Instant base = clock.instant().minus(Duration.ofHours(1));
    for (int i = 0; i < n; i++) {
      // distinct due times: the order is total, so the claims can be compared exactly
      Instant runAt = base.plusMillis(i * 7L);
      out.add(
          new QueueEntry(
              JobId.forScheduledTime(runAt),
              "default",
              priorities[random.nextInt(priorities.length)],
              runAt));
    }
    java.util.Collections.shuffle(out, random);
    return out;
  }

  @Test
  void shardedStrictClaimsTakeExactlyWhatAnUnshardedQueueWould() {
    try (TestStack stack = new TestStack(clock, settings(6))) {
      stack.queueSettings.strictPriority = true;
      List<QueueEntry> entries = mixedDueEntries(300, 1);
      stack.queue.enqueue(entries);
      Set<Integer> slots = new HashSet<>();
      for (int s = 0; s < 6; s++) {
        assertThat(stack.redis.sync().zcard(stack.keys.queue("default", Priority.LOW, s)))
            .as("shard %d holds some jobs", s)
            .isPositive();
        slots.add(SlotHash.getSlot(stack.keys.queue("default", Priority.LOW, s)));
      }
      assertThat(slots).hasSize(6);
      Set<Integer> masters = new HashSet<>();
      for (int slot : slots) {
        masters.add(cluster.masterOf(slot));
      }
      assertThat(masters).as("the shards are on more than one master").hasSizeGreaterThan(1);

      List<QueueEntry> expected = new ArrayList<>(entries);
      expected.sort(
          Comparator.comparingInt((QueueEntry e) -> e.priority().rank())
              .thenComparing(QueueEntry::runAt));
      Map<UUID, QueueEntry> byId = new HashMap<>();
      entries.forEach(e -> byId.put(e.id(), e));
      int taken = 0;
      while (taken < expected.size()) {
        List<Claimed> batch = stack.queue.claim("default", 11, clock.instant()).claimed();
        assertThat(batch).isNotEmpty();
        Set<UUID> want = new HashSet<>();
        for (QueueEntry e : expected.subList(taken, Math.min(expected.size(), taken + 11))) {
          want.add(e.id());
        }
        assertThat(batch.stream().map(Claimed::id).toList())
            .as("claim after %d", taken)
            .containsExactlyInAnyOrderElementsOf(want);
        taken += batch.size();
      }
      assertThat(stack.queue.claim("default", 5, clock.instant()).claimed()).isEmpty();
    }
  }

  @Test
  void weightedClaimsOverShardsShareByWeightAsAnUnshardedQueue() {
    try (TestStack stack = new TestStack(clock, settings(3))) {
      List<QueueEntry> entries = new ArrayList<>();
      for (Priority p : Priority.values()) {
        for (int i = 0; i < 200; i++) {
          entries.add(
              new QueueEntry(
                  JobId.forScheduledTime(clock.instant()), "default", p, clock.instant()));
        }
      }
      stack.queue.enqueue(entries);
      Map<Priority, Integer> counts = new HashMap<>();
      for (int i = 0; i < 60; i++) {
        for (Claimed c : stack.queue.claim("default", 5, clock.instant()).claimed()) {
          counts.merge(c.priority(), 1, Integer::sum);
        }
      }
      // weights 8:4:2:1 over 300 claimed jobs, as an unsharded queue shares them
      assertThat(counts)
          .containsEntry(Priority.CRITICAL, 160)
          .containsEntry(Priority.HIGH, 80)
          .containsEntry(Priority.NORMAL, 40)
          .containsEntry(Priority.LOW, 20);
    }
  }

  @Test
  void wakeUpsReachOneSubscriberFromEveryShard() throws Exception {
    try (TestStack stack = new TestStack(clock, settings(6))) {
      BlockingQueue<Instant> wakes = new LinkedBlockingQueue<>();
      try (WakeListener listener =
          WakeListener.subscribe(
              stack.redisClient, stack.keys, List.of("default"), (ns, at) -> wakes.add(at))) {
        Map<Integer, Instant> firstOfShard = new HashMap<>();
        long ms = 0;
        while (firstOfShard.size() < 6) {
          Instant at = clock.instant().plusSeconds(3600).minusMillis(ms++);
          UUID id = JobId.forScheduledTime(at);
          int shard = stack.keys.shardOf(id);
          if (!firstOfShard.containsKey(shard)) {
            firstOfShard.put(shard, at);
            stack.queue.enqueue(List.of(new QueueEntry(id, "default", Priority.NORMAL, at)));
          }
        }
        Set<Instant> heard = new HashSet<>();
        for (int i = 0; i < 6; i++) {
          Instant at = wakes.poll(10, TimeUnit.SECONDS);
          assertThat(at).as("wake-up %d of 6", i + 1).isNotNull();
          heard.add(at);
        }
        assertThat(heard).containsExactlyInAnyOrderElementsOf(firstOfShard.values());
      }
    }
  }

  @Test
  void aFailoverAndASlotMigrationDuringARunLoseNoEntryAndClaimNoneTwice() throws Exception {
    try (TestStack stack = new TestStack(clock, settings(3))) {
      List<QueueEntry> entries = mixedDueEntries(3_000, 2);
      Set<UUID> claimed = new HashSet<>();
      List<UUID> twice = new ArrayList<>();
      int slotOfShard1 = SlotHash.getSlot(stack.keys.queue("default", Priority.LOW, 1));
      for (int i = 0; i < entries.size(); i += 100) {
        stack.queue.enqueue(entries.subList(i, i + 100));
        if (i == 1_000) {
          cluster.failover(cluster.masterOf(slotOfShard1));
        }
        if (i == 2_000) {
          int to = -1;
          for (int m : cluster.masterPorts()) {
            if (m != cluster.masterOf(slotOfShard1)) {
              to = m;
            }
          }
          cluster.migrateSlot(slotOfShard1, to);
        }
        for (Claimed c : claimWithRetry(stack, 40)) {
          if (!claimed.add(c.id())) {
            twice.add(c.id());
          }
        }
      }
      while (true) {
        List<Claimed> batch = claimWithRetry(stack, 200);
        if (batch.isEmpty()) {
          break;
        }
        for (Claimed c : batch) {
          if (!claimed.add(c.id())) {
            twice.add(c.id());
          }
        }
      }
      assertThat(twice).isEmpty();
      Set<UUID> all = new HashSet<>();
      entries.forEach(e -> all.add(e.id()));
      assertThat(claimed).isEqualTo(all);
    }
  }

  /** A claim, retried while the cluster is still settling (a redirect the client follows late). */
  private List<Claimed> claimWithRetry(TestStack stack, int max) throws InterruptedException {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        return stack.queue.claim("default", max, clock.instant()).claimed();
      } catch (RuntimeException e) {
        last = e;
        Thread.sleep(200);
      }
    }
    throw last;
  }

  @Test
  // Last (methods without @Order come at Integer.MAX_VALUE / 2): the killed master stays down,
  // its shard has no replica after.
  @Order(Integer.MAX_VALUE)
  void thePromoterRebuildsFromItsSourceWhenAMasterIsKilled() {
    try (TestStack stack = new TestStack(clock, settings(3))) {
      List<QueueEntry> entries = mixedDueEntries(500, 3);
      entries.sort(Comparator.comparing(QueueEntry::runAt).thenComparing(QueueEntry::id));
      PendingJobs pending =
          (afterRunAt, afterId, until, limit) ->
              entries.stream()
                  .filter(
                      e ->
                          e.runAt().isAfter(afterRunAt)
                              || (e.runAt().equals(afterRunAt) && e.id().compareTo(afterId) > 0))
                  .filter(e -> !e.runAt().isAfter(until))
                  .limit(limit)
                  .toList();
      Promoter promoter =
          new Promoter(pending, stack.queue, stack.redis, new QueueSettings(), clock, "p1");
      assertThat(promoter.runOnce()).isEqualTo(500);
      assertThat(promoter.runOnce()).isZero();

      int slot = SlotHash.getSlot(stack.keys.queue("default", Priority.LOW, 0));
      int victim = cluster.masterOf(slot);
      cluster.killMaster(victim);
      // what the dead master held is gone from its replica only if it had not been replicated; the
      // promoter cannot know, and rebuilds everything once it sees a new master
      int promoted = 0;
      for (int attempt = 0; attempt < 150 && promoted == 0; attempt++) { // 30 s at most
        try {
          promoted = promoter.runOnce();
        } catch (RuntimeException e) {
          sleepQuietly();
        }
      }
      assertThat(promoter.rebuilds()).isEqualTo(2);
      assertThat(promoted).isEqualTo(500);
      long queued = 0;
      for (Priority p : Priority.values()) {
        queued += stack.queue.size("default", p);
      }
      assertThat(queued).isEqualTo(500);
    }
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
