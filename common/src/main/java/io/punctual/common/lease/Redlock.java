package io.punctual.common.lease;

import io.lettuce.core.ScriptOutputType;
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
  private static final LuaScript ACQUIRE =
      LuaScript.load(Redlock.class, "acquire_many.lua", ScriptOutputType.MULTI);
  private static final LuaScript RENEW =
      LuaScript.load(Redlock.class, "renew_many.lua", ScriptOutputType.MULTI);
  private static final LuaScript RELEASE =
      LuaScript.load(Redlock.class, "release_many.lua", ScriptOutputType.MULTI);

  /** Most leases one script call handles (a longer script would hold Redis up for longer). */
  static final int KEYS_PER_CALL = 500;

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
    Map<UUID, Integer> granted =
        countPerKeyBatch(ids, ACQUIRE, holder, Long.toString(ttl.toMillis()));
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
    Map<UUID, Integer> renewed =
        countPerKeyBatch(ids, RENEW, holder, Long.toString(ttl.toMillis()));
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
    countPerKeyBatch(ids, RELEASE, holder);
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

  /**
   * Runs {@code script} over the leases of {@code ids} on every node, {@link #KEYS_PER_CALL} keys
   * per call, all calls sent before any reply is awaited; counts per id the nodes that answered 1.
   * (On a Redis Cluster the calls would have to be split by slot: lease keys are tagged per job.)
   */
  private Map<UUID, Integer> countPerKeyBatch(
      Collection<UUID> ids, LuaScript script, String... args) {
    List<UUID> all = List.copyOf(ids);
    List<List<UUID>> chunks = new ArrayList<>();
    for (int from = 0; from < all.size(); from += KEYS_PER_CALL) {
      chunks.add(all.subList(from, Math.min(all.size(), from + KEYS_PER_CALL)));
    }
    List<List<CompletionStage<List<Object>>>> sent = new ArrayList<>(nodes.size());
    for (StatefulRedisConnection<String, String> node : nodes) {
      try {
        List<CompletionStage<List<Object>>> calls = new ArrayList<>(chunks.size());
        for (List<UUID> chunk : chunks) {
          String[] leaseKeys = new String[chunk.size()];
          for (int i = 0; i < leaseKeys.length; i++) {
            leaseKeys[i] = keys.lease(chunk.get(i));
          }
          calls.add(script.runAsync(node.async(), leaseKeys, args));
        }
        sent.add(calls);
      } catch (RuntimeException e) {
        log.warn("Redlock node unavailable: {}", e.toString());
      }
    }
    Map<UUID, Integer> counts = new HashMap<>();
    for (List<CompletionStage<List<Object>>> calls : sent) {
      for (int c = 0; c < calls.size(); c++) {
        List<UUID> chunk = chunks.get(c);
        try {
          List<Object> replies =
              calls.get(c).toCompletableFuture().get(NODE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          for (int i = 0; i < chunk.size() && i < replies.size(); i++) {
            if (replies.get(i) instanceof Long v && v == 1L) {
              counts.merge(chunk.get(i), 1, Integer::sum);
            }
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
