package io.punctual.common.redis;

import io.punctual.common.job.Priority;
import java.util.Optional;
import java.util.UUID;

/**
 * The one place Redis key names are made. Keys of one namespace share the cluster hash tag {@code
 * {namespace}} so the claim script, which reads all four priority queues, stays on one slot; lease
 * keys are tagged by job id so leases spread over a cluster.
 */
public final class RedisKeys {
  private final String prefix;

  public RedisKeys(String prefix) {
    this.prefix = prefix;
  }

  public String prefix() {
    return prefix;
  }

  public String queue(String namespace, Priority priority) {
    return prefix + ":{" + namespace + "}:q:" + priority.wireName();
  }

  /** The queues of a namespace, highest priority first. */
  public String[] queues(String namespace) {
    Priority[] all = Priority.values();
    String[] keys = new String[all.length];
    for (Priority p : all) {
      keys[p.rank()] = queue(namespace, p);
    }
    return keys;
  }

  /** A glob matching every queue key (all namespaces and priorities), for SCAN. */
  public String queuePattern() {
    return prefix + ":{*}:q:*";
  }

  /** A queue key taken apart. */
  public record QueueKey(String namespace, Priority priority) {}

  /** The namespace and priority of a queue key made by {@link #queue}; empty for other keys. */
  public Optional<QueueKey> parseQueue(String key) {
    String head = prefix + ":{";
    int close = key.lastIndexOf("}:q:");
    if (!key.startsWith(head) || close < head.length()) {
      return Optional.empty();
    }
    String namespace = key.substring(head.length(), close);
    String priority = key.substring(close + "}:q:".length());
    for (Priority p : Priority.values()) {
      if (p.wireName().equals(priority)) {
        return Optional.of(new QueueKey(namespace, p));
      }
    }
    return Optional.empty();
  }

  /** Fairness counters of the weighted claim. */
  public String fairness(String namespace) {
    return prefix + ":{" + namespace + "}:fair";
  }

  /** Pub/sub channel announcing a new earliest due time (ms) in a namespace. */
  public String wakeChannel(String namespace) {
    return prefix + ":{" + namespace + "}:wake";
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

  /** Lease that lets one promoter work at a time. */
  public String promoterLease() {
    return prefix + ":promoter:lease";
  }

  public String lease(UUID jobId) {
    return prefix + ":lease:{" + jobId + "}";
  }
}
