package io.punctual.queue;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The per-priority Redis sorted sets of due-soon jobs (score = run_at in ms). Redis never holds the
 * only copy of a job: everything here can be rebuilt from PostgreSQL.
 *
 * <p>A namespace's queue may be split into shards ({@link RedisKeys#shards}, on different cluster
 * slots); a job's entry lives in the shard of its id. Enqueues and removals go to that shard; a
 * claim is planned over all shards ({@link ShardedClaim}) and then runs the claim script on each
 * shard it takes from.
 */
public final class ReadyQueue {
  private static final LuaScript CLAIM =
      LuaScript.load(ReadyQueue.class, "claim.lua", ScriptOutputType.MULTI);
  private static final LuaScript ENQUEUE =
      LuaScript.load(ReadyQueue.class, "enqueue.lua", ScriptOutputType.VALUE);

  private final RedisConnection connection;
  private final RedisKeys keys;
  private final QueueSettings settings;
  private final Map<String, long[]> fairness = new java.util.concurrent.ConcurrentHashMap<>();

  public ReadyQueue(RedisConnection connection, RedisKeys keys, QueueSettings settings) {
    this.connection = connection;
    this.keys = keys;
    this.settings = settings;
  }

  public RedisKeys keys() {
    return keys;
  }

  /**
   * Adds jobs (any namespaces), one script call per namespace and shard; wakes workers when needed.
   */
  public void enqueue(List<QueueEntry> entries) {
    RedisClusterCommands<String, String> redis = connection.sync();
    for (var group : byShard(entries).entrySet()) {
      ShardOf shard = group.getKey();
      ENQUEUE.run(
          redis,
          keys.queues(shard.namespace(), shard.shard()),
          enqueueArgs(shard.namespace(), group.getValue(), "LT"));
    }
  }

  /**
   * {@link #enqueue} without waiting: the script calls are sent at once and the future completes
   * when Redis has answered them all, so a caller can bound the wait without a thread of its own.
   */
  public CompletableFuture<Void> enqueueAsync(List<QueueEntry> entries) {
    RedisClusterAsyncCommands<String, String> redis = connection.async();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (var group : byShard(entries).entrySet()) {
      ShardOf shard = group.getKey();
      calls.add(
          ENQUEUE
              .runAsync(
                  redis,
                  keys.queues(shard.namespace(), shard.shard()),
                  enqueueArgs(shard.namespace(), group.getValue(), "LT"))
              .toCompletableFuture());
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }

  /** How {@link #restore} treats a member that is already queued. */
  public enum Queued {
    /** Keeps its score: it was queued after the data loss (a flush left nothing behind). */
    KEEP,
    /**
     * Takes the held-back score when its own is earlier: it may predate the loss (a restart that
     * reloaded an older snapshot, a replica that lagged) and belong to a job a worker runs now.
     */
    HOLD_BACK
  }

  /**
   * Puts jobs back after Redis lost its data: those due before {@code notBefore} are queued at
   * {@code notBefore}, so that a worker still running one on a claim it has not written yet writes
   * it (or ends the attempt) before another worker can take the job.
   */
  public void restore(List<QueueEntry> entries, Instant notBefore, Queued queued) {
    RedisClusterCommands<String, String> redis = connection.sync();
    String mode = queued == Queued.KEEP ? "NX" : "GT";
    for (var group : byShard(entries).entrySet()) {
      ShardOf shard = group.getKey();
      ENQUEUE.run(
          redis,
          keys.queues(shard.namespace(), shard.shard()),
          enqueueArgs(shard.namespace(), heldBack(group.getValue(), notBefore), mode));
    }
  }

  /** {@code entries} with every due time before {@code notBefore} moved to it. */
  public static List<QueueEntry> heldBack(List<QueueEntry> entries, Instant notBefore) {
    List<QueueEntry> out = new ArrayList<>(entries.size());
    for (QueueEntry e : entries) {
      out.add(
          e.runAt().isBefore(notBefore)
              ? new QueueEntry(e.id(), e.namespace(), e.priority(), notBefore)
              : e);
    }
    return out;
  }

  /** One shard of one namespace's queue. */
  public record ShardOf(String namespace, int shard) {}

  /** Entries grouped by the shard of their namespace's queue they go to. */
  public Map<ShardOf, List<QueueEntry>> byShard(List<QueueEntry> entries) {
    return byShard(keys, entries);
  }

  /** {@link #byShard(List)} under {@code keys}, for a caller without a queue of its own. */
  public static Map<ShardOf, List<QueueEntry>> byShard(RedisKeys keys, List<QueueEntry> entries) {
    Map<ShardOf, List<QueueEntry>> byShard = new LinkedHashMap<>();
    for (QueueEntry e : entries) {
      byShard
          .computeIfAbsent(new ShardOf(e.namespace(), keys.shardOf(e.id())), n -> new ArrayList<>())
          .add(e);
    }
    return byShard;
  }

  /** enqueue.lua's arguments; {@code mode}: what a member already queued keeps (see the script). */
  private String[] enqueueArgs(String namespace, List<QueueEntry> entries, String mode) {
    String[] args = new String[2 + entries.size() * 3];
    args[0] = keys.wakeChannel(namespace);
    args[1] = mode;
    int i = 2;
    for (QueueEntry e : entries) {
      args[i++] = Integer.toString(e.priority().rank() + 1);
      args[i++] = Long.toString(e.runAt().toEpochMilli());
      args[i++] = e.id().toString();
    }
    return args;
  }

  /** A job taken from a queue. */
  public record Claimed(UUID id, Priority priority) {}

  /**
   * What a claim took, and the earliest due time still queued (empty when all queues are empty).
   */
  public record ClaimResult(List<Claimed> claimed, Optional<Instant> nextDue) {}

  /**
   * Takes up to {@code max} jobs due at {@code now}, fairly across priorities: atomically in one
   * script call when the queue has one shard; over several shards as {@link ShardedClaim} plans.
   */
  public ClaimResult claim(String namespace, int max, Instant now) {
    if (keys.shards() == 1) {
      return parseClaim(CLAIM.run(connection.sync(), claimKeys(namespace, 0), claimArgs(max, now)));
    }
    return new ShardedClaim(this, namespace, now).claim(max);
  }

  /** The claim script's keys on one shard: its four queues, then its fairness counters. */
  String[] claimKeys(String namespace, int shard) {
    String[] queues = keys.queues(namespace, shard);
    String[] scriptKeys = new String[queues.length + 1];
    System.arraycopy(queues, 0, scriptKeys, 0, queues.length);
    scriptKeys[queues.length] = keys.fairness(namespace, shard);
    return scriptKeys;
  }

  String[] claimArgs(int max, Instant now) {
    Priority[] priorities = Priority.values();
    String[] args = new String[3 + priorities.length];
    args[0] = Long.toString(now.toEpochMilli());
    args[1] = Integer.toString(max);
    args[2] = settings.strictPriority ? "1" : "0";
    for (Priority p : priorities) {
      args[3 + p.rank()] = Integer.toString(settings.weightOf(p));
    }
    return args;
  }

  static ClaimResult parseClaim(List<Object> reply) {
    Priority[] priorities = Priority.values();
    long next = Long.parseLong((String) reply.get(0));
    List<Claimed> claimed = new ArrayList<>((reply.size() - 1) / 2);
    for (int i = 1; i + 1 < reply.size(); i += 2) {
      UUID id = UUID.fromString((String) reply.get(i));
      Priority priority = priorities[Integer.parseInt((String) reply.get(i + 1)) - 1];
      claimed.add(new Claimed(id, priority));
    }
    return new ClaimResult(
        claimed, next < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(next)));
  }

  /**
   * The claim script on one priority queue of one shard, in strict mode (the earliest due entries
   * of that queue); the fairness key is named for the script's key list only (strict mode leaves it
   * alone). Without waiting.
   */
  CompletableFuture<ClaimResult> claimOneQueueAsync(
      String namespace, int shard, Priority priority, int max, Instant now) {
    String[] scriptKeys = {keys.queue(namespace, priority, shard), keys.fairness(namespace, shard)};
    String[] args = {
      Long.toString(now.toEpochMilli()),
      Integer.toString(max),
      "1",
      Integer.toString(settings.weightOf(priority))
    };
    return CLAIM
        .<List<Object>>runAsync(connection.async(), scriptKeys, args)
        .toCompletableFuture()
        .thenApply(
            reply -> {
              ClaimResult one = parseClaim(reply);
              List<Claimed> claimed = new ArrayList<>(one.claimed().size());
              for (Claimed c : one.claimed()) {
                claimed.add(new Claimed(c.id(), priority));
              }
              return new ClaimResult(claimed, one.nextDue());
            });
  }

  /** The weighted round-robin counters of a sharded namespace's claims in this process. */
  long[] fairnessCounters(String namespace) {
    return fairness.computeIfAbsent(namespace, n -> new long[Priority.values().length]);
  }

  RedisConnection connection() {
    return connection;
  }

  QueueSettings settings() {
    return settings;
  }

  /**
   * Tells the workers that these attempts were cancelled (one PUBLISH), without waiting; completes
   * when Redis has answered. Call it after the cancel committed.
   */
  public CompletableFuture<Void> announceCancelsAsync(List<CancelNotice> notices) {
    if (notices.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return connection
        .async()
        .publish(keys.cancelChannel(), CancelNotice.encode(notices))
        .toCompletableFuture()
        .thenApply(receivers -> null);
  }

  /** Removes a job from its queue (after a cancel). */
  public void remove(String namespace, Priority priority, UUID id) {
    connection.sync().zrem(keys.queue(namespace, priority, id), id.toString());
  }

  /**
   * Takes jobs out of their queues, one ZREM per queue whatever the number of jobs, without
   * waiting; completes when Redis has answered every ZREM.
   */
  public CompletableFuture<Void> removeAllAsync(List<QueueEntry> entries) {
    RedisClusterAsyncCommands<String, String> redis = connection.async();
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (var queue : byQueue(entries).entrySet()) {
      calls.add(
          redis
              .zrem(queue.getKey(), queue.getValue().toArray(String[]::new))
              .toCompletableFuture());
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }

  private Map<String, List<String>> byQueue(List<QueueEntry> entries) {
    Map<String, List<String>> byQueue = new LinkedHashMap<>();
    for (QueueEntry e : entries) {
      byQueue
          .computeIfAbsent(keys.queue(e.namespace(), e.priority(), e.id()), k -> new ArrayList<>())
          .add(e.id().toString());
    }
    return byQueue;
  }

  /** Number of queued jobs (due or not) of one priority, over all shards. */
  public long size(String namespace, Priority priority) {
    long n = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      n += connection.sync().zcard(keys.queue(namespace, priority, shard));
    }
    return n;
  }

  /** Number of queued jobs due at {@code now} of one priority, over all shards. */
  public long dueCount(String namespace, Priority priority, Instant now) {
    io.lettuce.core.Range<Double> due =
        io.lettuce.core.Range.create(Double.NEGATIVE_INFINITY, (double) now.toEpochMilli());
    long n = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      n += connection.sync().zcount(keys.queue(namespace, priority, shard), due);
    }
    return n;
  }
}
