package io.punctual.common.lease;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.punctual.common.queue.LuaScript;
import io.punctual.common.queue.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redlock leases on one or N independent Redis nodes, for many jobs at once: every node gets all
 * its commands pipelined, and a lease counts when a majority of nodes granted it within its
 * validity time. A lease is a liveness signal, not a guarantee of exclusivity (pauses and clock
 * drift can outlive it): the attempt number checked by PostgreSQL is what fences a stale worker.
 */
public final class Redlock {
  private static final Logger log = LoggerFactory.getLogger(Redlock.class);
  private static final LuaScript RENEW =
      LuaScript.load(Redlock.class, "renew.lua", ScriptOutputType.INTEGER);
  private static final LuaScript RELEASE =
      LuaScript.load(Redlock.class, "release.lua", ScriptOutputType.INTEGER);
  private static final double CLOCK_DRIFT_FACTOR = 0.01;
  private static final long NODE_TIMEOUT_MS = 2_000;

  private final List<StatefulRedisConnection<String, String>> nodes;
  private final RedisKeys keys;
  private final int quorum;

  public Redlock(List<StatefulRedisConnection<String, String>> nodes, RedisKeys keys) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("Redlock needs at least one node");
    }
    this.nodes = List.copyOf(nodes);
    this.keys = keys;
    this.quorum = nodes.size() / 2 + 1;
  }

  public int quorum() {
    return quorum;
  }

  /** Acquires leases for {@code ids}; returns the ids whose lease is held by a majority in time. */
  public Set<UUID> acquire(Collection<UUID> ids, String holder, Duration ttl) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    long started = System.nanoTime();
    SetArgs args = SetArgs.Builder.nx().px(ttl.toMillis());
    Map<UUID, Integer> granted =
        countPerId(
            ids,
            node -> {
              Map<UUID, CompletionStage<Boolean>> out = new HashMap<>();
              for (UUID id : ids) {
                RedisFuture<String> f = node.set(keys.lease(id), holder, args);
                out.put(id, f.thenApply("OK"::equals));
              }
              return out;
            });
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    long drift = (long) (ttl.toMillis() * CLOCK_DRIFT_FACTOR) + 2;
    boolean inTime = elapsedMs < ttl.toMillis() - drift;
    Set<UUID> held = new HashSet<>();
    List<UUID> partial = new ArrayList<>();
    for (UUID id : ids) {
      int nodesGranted = granted.getOrDefault(id, 0);
      if (inTime && nodesGranted >= quorum) {
        held.add(id);
      } else if (nodesGranted > 0) {
        partial.add(id);
      }
    }
    // Undo what this call took without a majority (or too late). A lease no node granted is left
    // alone: it may be this very holder's, taken earlier (the same worker popping a duplicate queue
    // entry of a job it runs), and releasing it would drop the lease of a running attempt.
    if (!partial.isEmpty()) {
      release(partial, holder);
    }
    return held;
  }

  /** Extends leases this holder owns; returns the ids still held by a majority. */
  public Set<UUID> renew(Collection<UUID> ids, String holder, Duration ttl) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    String ttlMs = Long.toString(ttl.toMillis());
    Map<UUID, Integer> renewed =
        countPerId(
            ids,
            node -> {
              Map<UUID, CompletionStage<Boolean>> out = new HashMap<>();
              for (UUID id : ids) {
                CompletionStage<Long> f =
                    RENEW.runAsync(node, new String[] {keys.lease(id)}, holder, ttlMs);
                out.put(id, f.thenApply(v -> v != null && v == 1L));
              }
              return out;
            });
    Set<UUID> held = new HashSet<>();
    for (UUID id : ids) {
      if (renewed.getOrDefault(id, 0) >= quorum) {
        held.add(id);
      }
    }
    return held;
  }

  /** Releases leases this holder owns, on every node (best effort). */
  public void release(Collection<UUID> ids, String holder) {
    if (ids.isEmpty()) {
      return;
    }
    countPerId(
        ids,
        node -> {
          Map<UUID, CompletionStage<Boolean>> out = new HashMap<>();
          for (UUID id : ids) {
            CompletionStage<Long> f = RELEASE.runAsync(node, new String[] {keys.lease(id)}, holder);
            out.put(id, f.thenApply(v -> v != null && v == 1L));
          }
          return out;
        });
  }

  /** The ids among {@code ids} that some holder leases on a majority of nodes (pipelined). */
  public Set<UUID> heldAmong(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    Map<UUID, Integer> present =
        countPerId(
            ids,
            node -> {
              Map<UUID, CompletionStage<Boolean>> out = new HashMap<>();
              for (UUID id : ids) {
                out.put(id, node.exists(keys.lease(id)).thenApply(n -> n != null && n > 0));
              }
              return out;
            });
    Set<UUID> held = new HashSet<>();
    for (UUID id : ids) {
      if (present.getOrDefault(id, 0) >= quorum) {
        held.add(id);
      }
    }
    return held;
  }

  /** Whether any holder has a lease on {@code id} on a majority of nodes. */
  public boolean isHeld(UUID id) {
    int present = 0;
    for (StatefulRedisConnection<String, String> node : nodes) {
      try {
        if (node.sync().exists(keys.lease(id)) > 0) {
          present++;
        }
      } catch (RuntimeException e) {
        log.debug("lease check failed on a node", e);
      }
    }
    return present >= quorum;
  }

  private interface PerNode {
    Map<UUID, CompletionStage<Boolean>> send(RedisAsyncCommands<String, String> node);
  }

  private Map<UUID, Integer> countPerId(Collection<UUID> ids, PerNode perNode) {
    List<Map<UUID, CompletionStage<Boolean>>> sent = new ArrayList<>(nodes.size());
    for (StatefulRedisConnection<String, String> node : nodes) {
      try {
        sent.add(perNode.send(node.async()));
      } catch (RuntimeException e) {
        log.warn("Redlock node unavailable: {}", e.toString());
      }
    }
    Map<UUID, Integer> counts = new HashMap<>();
    for (Map<UUID, CompletionStage<Boolean>> replies : sent) {
      for (var reply : replies.entrySet()) {
        try {
          CompletableFuture<Boolean> f = reply.getValue().toCompletableFuture();
          if (Boolean.TRUE.equals(f.get(NODE_TIMEOUT_MS, TimeUnit.MILLISECONDS))) {
            counts.merge(reply.getKey(), 1, Integer::sum);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return counts;
        } catch (Exception e) {
          log.debug("Redlock command failed on a node: {}", e.toString());
        }
      }
    }
    return counts;
  }
}
