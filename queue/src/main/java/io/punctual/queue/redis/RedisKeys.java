package io.punctual.queue.redis;

import io.punctual.model.Priority;
import java.util.Optional;
import java.util.UUID;

/**
 * The one place Redis key names are made, and so the one place that decides which cluster slot a
 * key is in (its hash tag, the part in braces).
 *
 * <p>A namespace's queue is split into {@code shards} shards (1 unless {@code redis.queueShards}
 * says more). Shard 0 has the hash tag {@code {namespace}} (the layout of an unsharded queue),
 * shard i > 0 {@code {namespace#i}}; each shard holds the four priority queues and the fairness
 * counters of its jobs under one tag, so each claim or enqueue script call stays on one slot, and
 * different shards land on different slots (and so, on a cluster, usually on different masters). A
 * job's shard is a hash of its id. The rate bucket, the wake channel and the promoter's keys are
 * single keys; lease keys are tagged by job id so leases spread over a cluster.
 */
public final class RedisKeys {
  private final String prefix;
  private final int shards;

  public RedisKeys(String prefix) {
    this(prefix, 1);
  }

  public RedisKeys(String prefix, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be >= 1: " + shards);
    }
    this.prefix = prefix;
    this.shards = shards;
  }

  public String prefix() {
    return prefix;
  }

  /** How many shards each namespace's queue is split into. */
  public int shards() {
    return shards;
  }

  /** The shard a job's queue entry lives in. */
  public int shardOf(UUID jobId) {
    return Math.floorMod(jobId.hashCode(), shards);
  }

  /**
   * The hash tag of a namespace's shard: {@code {ns}} for shard 0, {@code {ns#i}} after. Every key
   * that a script touches together with a shard's queues carries it.
   */
  public static String tag(String namespace, int shard) {
    return shard == 0 ? "{" + namespace + "}" : "{" + namespace + "#" + shard + "}";
  }

  /** A namespace and shard, as a key's hash tag names them. */
  public record Tag(String namespace, int shard) {}

  /**
   * What {@link #tag} wrote, read back from the text between its braces ({@code namespace} or
   * {@code namespace#shard}); empty when the shard is not a number.
   */
  public static Optional<Tag> parseTag(String inBraces) {
    int hash = inBraces.lastIndexOf('#');
    if (hash < 0) {
      return Optional.of(new Tag(inBraces, 0));
    }
    try {
      return Optional.of(
          new Tag(inBraces.substring(0, hash), Integer.parseInt(inBraces.substring(hash + 1))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The queue of one priority in the shard that holds {@code jobId}. */
  public String queue(String namespace, Priority priority, UUID jobId) {
    return queue(namespace, priority, shardOf(jobId));
  }

  public String queue(String namespace, Priority priority, int shard) {
    return prefix + ":" + tag(namespace, shard) + ":q:" + priority.wireName();
  }

  /** The queue of shard 0 (the whole queue when there is one shard). */
  public String queue(String namespace, Priority priority) {
    return queue(namespace, priority, 0);
  }

  /** The queues of a namespace's shard, highest priority first. */
  public String[] queues(String namespace, int shard) {
    Priority[] all = Priority.values();
    String[] keys = new String[all.length];
    for (Priority p : all) {
      keys[p.rank()] = queue(namespace, p, shard);
    }
    return keys;
  }

  /** The queues of shard 0, highest priority first (the whole queue when there is one shard). */
  public String[] queues(String namespace) {
    return queues(namespace, 0);
  }

  /** A glob matching every queue key (all namespaces and priorities), for SCAN. */
  public String queuePattern() {
    return prefix + ":{*}:q:*";
  }

  /** A queue key taken apart. */
  public record QueueKey(String namespace, Priority priority, int shard) {}

  /**
   * The namespace, priority and shard of a queue key made by {@link #queue}; empty for other keys.
   * (Namespace names have no {@code #} or braces, so the shard suffix is unambiguous.)
   */
  public Optional<QueueKey> parseQueue(String key) {
    String head = prefix + ":{";
    int close = key.lastIndexOf("}:q:");
    if (!key.startsWith(head) || close < head.length()) {
      return Optional.empty();
    }
    Optional<Tag> tag = parseTag(key.substring(head.length(), close));
    String priority = key.substring(close + "}:q:".length());
    for (Priority p : Priority.values()) {
      if (tag.isPresent() && p.wireName().equals(priority)) {
        return Optional.of(new QueueKey(tag.get().namespace(), p, tag.get().shard()));
      }
    }
    return Optional.empty();
  }

  /** Fairness counters of the weighted claim, in shard 0. */
  public String fairness(String namespace) {
    return fairness(namespace, 0);
  }

  /** Fairness counters of the weighted claim in one shard (in the slot of its queues). */
  public String fairness(String namespace, int shard) {
    return prefix + ":" + tag(namespace, shard) + ":fair";
  }

  /** Pub/sub channel announcing a new earliest due time (ms) in a namespace. */
  public String wakeChannel(String namespace) {
    return prefix + ":{" + namespace + "}:wake";
  }

  /**
   * Sorted set of live workers: member {@code <livenessTtlMs>:<workerId>}, score the Redis time
   * (ms) until which the worker counts as alive (see {@code WorkerLiveness}).
   */
  public String workersAlive() {
    return prefix + ":workers:alive";
  }

  /**
   * Set of the jobs whose claims worker {@code workerId} holds without having written them to
   * PostgreSQL yet ({@code HeldClaims}).
   */
  public String heldClaims(String workerId) {
    return prefix + ":workers:held:{" + workerId + "}";
  }

  /**
   * Pub/sub channel telling workers that a running attempt was cancelled ({@code CancelNotice}).
   */
  public String cancelChannel() {
    return prefix + ":cancels";
  }

  /** The submit rate limiter's token bucket of a namespace (api: a namespace's rate quota). */
  public String submitRate(String namespace) {
    return prefix + ":{" + namespace + "}:rate";
  }

  /**
   * On a Redlock node: since when (the node's own clock, ms) it has kept its data; gone when the
   * node restarts empty (see {@code Redlock}'s restart delay).
   */
  public String leaseNodeDataSince() {
    return prefix + ":lease-node:data-since";
  }

  /** Up to where (run_at ms and id) the promoter has moved pending jobs into Redis. */
  public String promoterCursor() {
    return prefix + ":promoter:cursor";
  }

  /**
   * Set by a rebuild of the queue for as long as its jobs are held back ({@code queue.
   * recoveryHoldBack}): {@code <until ms>/<KEEP|HOLD_BACK>} (a {@code ReadyQueue.Queued}), so that
   * a rebuild cut short goes on the same way.
   */
  public String promoterHoldBack() {
    return prefix + ":promoter:holdback";
  }

  /** Lease that lets one promoter work at a time. */
  public String promoterLease() {
    return prefix + ":promoter:lease";
  }

  public String lease(UUID jobId) {
    return prefix + ":lease:{" + jobId + "}";
  }
}
