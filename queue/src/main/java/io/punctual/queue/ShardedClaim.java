package io.punctual.queue;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.punctual.model.Priority;
import io.punctual.queue.ReadyQueue.ClaimResult;
import io.punctual.queue.ReadyQueue.Claimed;
import io.punctual.queue.redis.RedisKeys;
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
 *   <li><b>Plan.</b> The {@code max} best due entries of the sample, as an unsharded queue would
 *       choose them: with strict priority by (priority, due time); weighted, by smooth weighted
 *       round-robin over the priorities with due entries (its counters kept per namespace in this
 *       process, so claims of one job at a time share fairly too), each turn taking the earliest
 *       due entry of the chosen priority over all shards. The plan is a count per shard and
 *       priority.
 *   <li><b>Claim.</b> The claim script once per planned shard and priority, on that one queue (in
 *       its strict mode: it takes the earliest due entries), all at once. Each call is atomic on
 *       its shard.
 * </ol>
 *
 * <p>The order guarantee: without concurrent claims of the same namespace, a claim takes exactly
 * the jobs an unsharded queue would (strict) or the same priority mix, earliest first (weighted).
 * With concurrent claimers, an entry another claimer took between the sample and the claim is
 * replaced by the next due entry of the same queue, so a claim may take an entry that ranks behind
 * another shard's head by at most the number of entries claimed concurrently in that window; a
 * queue that no longer has its share gives fewer jobs (the worker claims again).
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
            redis
                .zrangeWithScores(keys.queue(namespace, p, s), 0, Math.max(0, max - 1L))
                .toCompletableFuture());
      }
      sent.add(perPriority);
    }
    long nowMs = now.toEpochMilli();
    long earliestNotTaken = Long.MAX_VALUE;
    List<List<Sampled>> dueByPriority = new ArrayList<>();
    for (int i = 0; i < priorities.length; i++) {
      dueByPriority.add(new ArrayList<>());
    }
    for (int s = 0; s < shards; s++) {
      for (Priority p : priorities) {
        for (ScoredValue<String> e : join(sent.get(s).get(p.rank()))) {
          long score = (long) e.getScore();
          if (score <= nowMs) {
            dueByPriority.get(p.rank()).add(new Sampled(s, p, score));
          }
        }
      }
    }
    int[][] take = plan(dueByPriority, max);
    List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      for (Priority p : priorities) {
        if (take[s][p.rank()] > 0) {
          claims.add(queue.claimOneQueueAsync(namespace, s, p, take[s][p.rank()], now));
        } else {
          // a queue not claimed from: its head (if any) still counts for the next due time
          List<ScoredValue<String>> head = join(sent.get(s).get(p.rank()));
          if (!head.isEmpty()) {
            earliestNotTaken = Math.min(earliestNotTaken, (long) head.get(0).getScore());
          }
        }
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

  /** How many entries to take from each shard and priority: see the class comment. */
  private int[][] plan(List<List<Sampled>> dueByPriority, int max) {
    int[][] take = new int[queue.keys().shards()][dueByPriority.size()];
    Comparator<Sampled> byDueTime =
        Comparator.comparingLong(Sampled::score).thenComparingInt(Sampled::shard);
    for (List<Sampled> due : dueByPriority) {
      due.sort(byDueTime);
    }
    if (queue.settings().strictPriority) {
      int left = max;
      for (int p = 0; p < dueByPriority.size(); p++) {
        List<Sampled> due = dueByPriority.get(p);
        for (int i = 0; i < due.size() && left > 0; i++, left--) {
          take[due.get(i).shard()][p]++;
        }
      }
      return take;
    }
    Priority[] priorities = Priority.values();
    int[] cursor = new int[dueByPriority.size()];
    long[] current = queue.fairnessCounters(namespace);
    synchronized (current) {
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
        take[dueByPriority.get(best).get(cursor[best]++).shard()][best]++;
      }
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
