package io.punctual.common.queue;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.punctual.common.job.Priority;
import io.punctual.common.queue.ReadyQueue.ClaimResult;
import io.punctual.common.queue.ReadyQueue.Claimed;
import io.punctual.common.redis.RedisKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One claim over a namespace's sharded queue, in two round trips whatever the number of shards:
 *
 * <ol>
 *   <li><b>Sample.</b> The first {@code max} entries (with scores) of every priority queue of every
 *       shard, all commands sent at once ({@code ZRANGE key 0 max-1 WITHSCORES}; on a cluster they
 *       go to the shards' masters in parallel).
 *   <li><b>Plan.</b> Which shards the {@code max} best due entries of the sample are in, as an
 *       unsharded queue would choose them: with strict priority by (priority, due time); weighted,
 *       by smooth weighted round-robin over the priorities with due entries, each turn taking the
 *       earliest due entry of the chosen priority over all shards.
 *   <li><b>Claim.</b> The claim script on each shard the plan takes from, asking for that shard's
 *       share, all at once. Each script call is atomic on its shard.
 * </ol>
 *
 * <p>The order guarantee: without concurrent claims of the same namespace, a strict claim takes
 * exactly the jobs an unsharded queue would (the {@code max} best due entries by priority then due
 * time). With concurrent claimers, an entry another claimer took between the sample and the claim
 * is replaced by the next due entry of the same shard (the script takes that shard's best), so a
 * claim may take an entry that ranks behind another shard's head by at most the number of entries
 * claimed concurrently in that window; a shard that no longer has its share gives fewer jobs (the
 * worker claims again). Weighted claims follow the plan's split over shards; within a shard the
 * script's own fairness counters (one set per shard) choose the priorities.
 */
final class ShardedClaim {
  private final ReadyQueue queue;
  private final String namespace;
  private final Instant now;

  ShardedClaim(ReadyQueue queue, String namespace, Instant now) {
    this.queue = queue;
    this.namespace = namespace;
    this.now = now;
  }

  /** A sampled due entry: its shard, priority and score. */
  private record Sampled(int shard, Priority priority, long score) {}

  ClaimResult claim(int max) {
    RedisKeys keys = queue.keys();
    int shards = keys.shards();
    Priority[] priorities = Priority.values();
    RedisClusterAsyncCommands<String, String> redis = queue.connection().async();
    List<List<CompletableFuture<List<ScoredValue<String>>>>> sent = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      List<CompletableFuture<List<ScoredValue<String>>>> perPriority = new ArrayList<>();
      for (Priority p : priorities) {
        perPriority.add(
            redis.zrangeWithScores(keys.queue(namespace, p, s), 0, max - 1L).toCompletableFuture());
      }
      sent.add(perPriority);
    }
    long nowMs = now.toEpochMilli();
    long earliestNotTaken = Long.MAX_VALUE;
    long[] earliestOfShard = new long[shards];
    List<List<Sampled>> dueByPriority = new ArrayList<>();
    for (int i = 0; i < priorities.length; i++) {
      dueByPriority.add(new ArrayList<>());
    }
    for (int s = 0; s < shards; s++) {
      earliestOfShard[s] = Long.MAX_VALUE;
      for (Priority p : priorities) {
        for (ScoredValue<String> e : join(sent.get(s).get(p.rank()))) {
          long score = (long) e.getScore();
          earliestOfShard[s] = Math.min(earliestOfShard[s], score);
          if (score <= nowMs) {
            dueByPriority.get(p.rank()).add(new Sampled(s, p, score));
          }
        }
      }
    }
    int[] take = plan(dueByPriority, max);
    List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      if (take[s] > 0) {
        claims.add(queue.claimShardAsync(namespace, s, take[s], now));
      } else {
        earliestNotTaken = Math.min(earliestNotTaken, earliestOfShard[s]);
      }
    }
    List<Claimed> claimed = new ArrayList<>(max);
    long next = earliestNotTaken;
    for (CompletableFuture<ClaimResult> c : claims) {
      ClaimResult r = join(c);
      claimed.addAll(r.claimed());
      if (r.nextDue().isPresent()) {
        next = Math.min(next, r.nextDue().get().toEpochMilli());
      }
    }
    return new ClaimResult(
        claimed,
        next == Long.MAX_VALUE ? Optional.empty() : Optional.of(Instant.ofEpochMilli(next)));
  }

  /** How many entries to take from each shard: see the class comment. */
  private int[] plan(List<List<Sampled>> dueByPriority, int max) {
    int[] take = new int[queue.keys().shards()];
    Comparator<Sampled> byDueTime =
        Comparator.comparingLong(Sampled::score).thenComparingInt(Sampled::shard);
    for (List<Sampled> due : dueByPriority) {
      due.sort(byDueTime);
    }
    int[] cursor = new int[dueByPriority.size()];
    if (queue.settings().strictPriority) {
      int left = max;
      for (List<Sampled> due : dueByPriority) {
        for (int i = 0; i < due.size() && left > 0; i++, left--) {
          take[due.get(i).shard()]++;
        }
      }
      return take;
    }
    Priority[] priorities = Priority.values();
    long[] current = new long[dueByPriority.size()];
    for (int n = 0; n < max; n++) {
      long total = 0;
      int best = -1;
      for (int p = 0; p < dueByPriority.size(); p++) {
        if (cursor[p] < dueByPriority.get(p).size()) {
          long w = queue.settings().weightOf(priorities[p]);
          current[p] += w;
          total += w;
          if (best < 0 || current[p] > current[best]) {
            best = p;
          }
        }
      }
      if (best < 0) {
        break;
      }
      current[best] -= total;
      take[dueByPriority.get(best).get(cursor[best]++).shard()]++;
    }
    return take;
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
