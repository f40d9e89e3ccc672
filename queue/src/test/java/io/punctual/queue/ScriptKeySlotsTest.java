package io.punctual.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.punctual.model.JobId;
import io.punctual.model.QueueEntry;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.limit.LimitKeys;
import io.punctual.queue.redis.RedisKeys;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster a script may only touch keys of one slot. Every script call path names its
 * keys through {@link RedisKeys}; this checks, for each, that its keys hash to one slot (Lettuce's
 * own {@link SlotHash}, what the cluster client routes by), and that shards spread over slots.
 */
class ScriptKeySlotsTest {
  private static final List<String> NAMESPACES =
      List.of("default", "billing", "a.b:c-d_e", "X", "n123456789");

  private static Set<Integer> slots(String... keys) {
    Set<Integer> slots = new HashSet<>();
    for (String key : keys) {
      slots.add(SlotHash.getSlot(key));
    }
    return slots;
  }

  @Test
  void claimAndEnqueueKeysOfOneShardShareOneSlot() {
    for (int shards : new int[] {1, 3, 6, 64}) {
      RedisKeys keys = new RedisKeys("punctual", shards);
      ReadyQueue queue = new ReadyQueue(null, keys, new QueueSettings());
      for (String ns : NAMESPACES) {
        for (int s = 0; s < shards; s++) {
          // claim.lua: four queues and the fairness counters
          assertThat(slots(queue.claimKeys(ns, s))).as("claim %s#%d", ns, s).hasSize(1);
          // enqueue.lua (ReadyQueue, Promoter) and reconcile.lua (reaper): the four queues
          assertThat(slots(keys.queues(ns, s))).as("enqueue %s#%d", ns, s).hasSize(1);
          assertThat(slots(keys.queues(ns, s))).isEqualTo(slots(queue.claimKeys(ns, s)));
        }
      }
    }
  }

  @Test
  void aJobIsEnqueuedClaimedAndRemovedInTheSameShard() {
    RedisKeys keys = new RedisKeys("punctual", 6);
    ReadyQueue queue = new ReadyQueue(null, keys, new QueueSettings());
    for (int i = 0; i < 1_000; i++) {
      UUID id = JobId.forScheduledTime(Instant.now());
      int shard = keys.shardOf(id);
      QueueEntry e = new QueueEntry(id, "default", io.punctual.model.Priority.HIGH, Instant.now());
      assertThat(queue.byShard(List.of(e)).keySet())
          .containsExactly(new ReadyQueue.ShardOf("default", shard));
      // remove (ZREM) and the reaper's removeStale.lua use this key; it is one of the shard's
      // claim keys
      assertThat(Arrays.asList(queue.claimKeys("default", shard)))
          .contains(keys.queue("default", io.punctual.model.Priority.HIGH, id));
    }
  }

  @Test
  void singleKeyScriptsAndLeasesNameOneKey() {
    RedisKeys keys = new RedisKeys("punctual", 3);
    // renew.lua / release.lua: one lease key per call (Redlock pipelines one call per key)
    UUID id = JobId.forScheduledTime(Instant.now());
    assertThat(slots(keys.lease(id))).hasSize(1);
    // leases of different jobs spread over slots (tagged by job id)
    Set<Integer> leaseSlots = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      leaseSlots.add(SlotHash.getSlot(keys.lease(UUID.randomUUID())));
    }
    assertThat(leaseSlots.size()).isGreaterThan(90);
    // SingleHolderLease (promoter, planner, reaper): one key each
    assertThat(slots(keys.promoterLease())).hasSize(1);
    assertThat(slots(keys.promoterCursor())).hasSize(1);
    assertThat(slots(keys.submitRate("default")))
        .containsExactlyElementsOf(slots(keys.queue("default", io.punctual.model.Priority.LOW)));
  }

  @Test
  void shardsOfANamespaceLandOnDifferentSlotsAndShardZeroKeepsTheUnshardedLayout() {
    for (String ns : NAMESPACES) {
      RedisKeys keys = new RedisKeys("punctual", 6);
      Set<Integer> shardSlots = new HashSet<>();
      for (int s = 0; s < 6; s++) {
        shardSlots.addAll(slots(keys.queues(ns, s)));
      }
      assertThat(shardSlots).as(ns).hasSize(6);
      assertThat(keys.queues(ns, 0)).isEqualTo(new RedisKeys("punctual").queues(ns));
      assertThat(keys.parseQueue(keys.queue(ns, io.punctual.model.Priority.LOW, 5)))
          .contains(new RedisKeys.QueueKey(ns, io.punctual.model.Priority.LOW, 5));
    }
  }

  @Test
  void limitScriptsTouchOneSlotAndHeldJobsWaitOnTheirQueueShardsSlot() {
    for (int shards : new int[] {1, 3, 6}) {
      RedisKeys keys = new RedisKeys("punctual", shards);
      LimitKeys limitKeys = new LimitKeys(keys);
      for (String ns : NAMESPACES) {
        String field = LimitKeys.field("t", "k");
        // taken.lua, release.lua, mirror.lua: the mirror, on the namespace's slot
        assertThat(slots(limitKeys.held(ns), limitKeys.holders(ns))).hasSize(1);
        for (int s = 0; s < shards; s++) {
          // hold.lua: hold set and index; drain.lua: those and the shard's queues;
          // reconcile.lua: the shard's queues and its index
          String[] drain =
              Stream.concat(
                      Stream.of(
                          limitKeys.hold(ns, s, field),
                          limitKeys.paused(ns, s, "t"),
                          limitKeys.where(ns, s)),
                      Arrays.stream(keys.queues(ns, s)))
                  .toArray(String[]::new);
          assertThat(slots(drain)).as("drain %s#%d", ns, s).hasSize(1);
          assertThat(limitKeys.parse(limitKeys.hold(ns, s, field)))
              .contains(new LimitKeys.WaitingSet(ns, s, false, field));
          assertThat(limitKeys.parse(limitKeys.paused(ns, s, "t")))
              .contains(new LimitKeys.WaitingSet(ns, s, true, "t"));
        }
        assertThat(limitKeys.parse(limitKeys.held(ns))).isEmpty();
        assertThat(limitKeys.parse(limitKeys.where(ns, 0))).isEmpty();
        // shard 0 keeps the unsharded layout
        assertThat(limitKeys.hold(ns, 0, field))
            .isEqualTo(new LimitKeys(new RedisKeys("punctual")).hold(ns, field));
      }
    }
  }
}
