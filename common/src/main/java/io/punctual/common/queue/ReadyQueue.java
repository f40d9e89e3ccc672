package io.punctual.common.queue;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.job.Priority;
import io.punctual.common.store.JobStore.QueueEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The per-priority Redis sorted sets of due-soon jobs (score = run_at in ms). Redis never holds the
 * only copy of a job: everything here can be rebuilt from PostgreSQL.
 */
public final class ReadyQueue {
  private static final LuaScript CLAIM =
      LuaScript.load(ReadyQueue.class, "claim.lua", ScriptOutputType.MULTI);
  private static final LuaScript ENQUEUE =
      LuaScript.load(ReadyQueue.class, "enqueue.lua", ScriptOutputType.VALUE);

  private final StatefulRedisConnection<String, String> connection;
  private final RedisKeys keys;
  private final QueueSettings settings;

  public ReadyQueue(
      StatefulRedisConnection<String, String> connection, RedisKeys keys, QueueSettings settings) {
    this.connection = connection;
    this.keys = keys;
    this.settings = settings;
  }

  public RedisKeys keys() {
    return keys;
  }

  /** Adds jobs (any namespaces), one script call per namespace; wakes workers when needed. */
  public void enqueue(List<QueueEntry> entries) {
    if (entries.isEmpty()) {
      return;
    }
    Map<String, List<QueueEntry>> byNamespace = new LinkedHashMap<>();
    for (QueueEntry e : entries) {
      byNamespace.computeIfAbsent(e.namespace(), n -> new ArrayList<>()).add(e);
    }
    RedisCommands<String, String> redis = connection.sync();
    for (var group : byNamespace.entrySet()) {
      String namespace = group.getKey();
      List<String> args = new ArrayList<>(1 + group.getValue().size() * 3);
      args.add(keys.wakeChannel(namespace));
      for (QueueEntry e : group.getValue()) {
        args.add(Integer.toString(e.priority().ordinal() + 1));
        args.add(Long.toString(e.runAt().toEpochMilli()));
        args.add(e.id().toString());
      }
      ENQUEUE.run(redis, keys.queues(namespace), args.toArray(String[]::new));
    }
  }

  /** A job taken from a queue. */
  public record Claimed(UUID id, Priority priority) {}

  /**
   * What a claim took, and the earliest due time still queued (empty when all queues are empty).
   */
  public record ClaimResult(List<Claimed> claimed, Optional<Instant> nextDue) {}

  /** Atomically takes up to {@code max} jobs due at {@code now}, fairly across priorities. */
  public ClaimResult claim(String namespace, int max, Instant now) {
    String[] queues = keys.queues(namespace);
    String[] scriptKeys = new String[queues.length + 1];
    System.arraycopy(queues, 0, scriptKeys, 0, queues.length);
    scriptKeys[queues.length] = keys.fairness(namespace);
    Priority[] priorities = Priority.values();
    String[] args = new String[3 + priorities.length];
    args[0] = Long.toString(now.toEpochMilli());
    args[1] = Integer.toString(max);
    args[2] = settings.strictPriority ? "1" : "0";
    for (Priority p : priorities) {
      args[3 + p.ordinal()] = Integer.toString(settings.weightOf(p));
    }
    List<Object> reply = CLAIM.run(connection.sync(), scriptKeys, args);
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

  /** Removes a job from its queue (after a cancel). */
  public void remove(String namespace, Priority priority, UUID id) {
    connection.sync().zrem(keys.queue(namespace, priority), id.toString());
  }

  /** Takes jobs out of their queues: one ZREM per queue, whatever the number of jobs. */
  public void removeAll(List<QueueEntry> entries) {
    java.util.Map<String, List<String>> byQueue = new java.util.LinkedHashMap<>();
    for (QueueEntry e : entries) {
      byQueue
          .computeIfAbsent(
              keys.queue(e.namespace(), e.priority()), k -> new java.util.ArrayList<>())
          .add(e.id().toString());
    }
    for (var queue : byQueue.entrySet()) {
      connection.sync().zrem(queue.getKey(), queue.getValue().toArray(String[]::new));
    }
  }

  /** Number of queued jobs (due or not) of one priority. */
  public long size(String namespace, Priority priority) {
    return connection.sync().zcard(keys.queue(namespace, priority));
  }

  /** Number of queued jobs due at {@code now} of one priority. */
  public long dueCount(String namespace, Priority priority, Instant now) {
    return connection
        .sync()
        .zcount(
            keys.queue(namespace, priority),
            io.lettuce.core.Range.create(Double.NEGATIVE_INFINITY, (double) now.toEpochMilli()));
  }
}
