package io.punctual.common.lease;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.punctual.common.redis.LuaScript;
import io.punctual.common.redis.PipelinedCommands;
import io.punctual.common.redis.RedisConnection;
import io.punctual.common.redis.RedisKeys;
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

  private final List<RedisConnection> nodes;
  private final RedisKeys keys;
  private final int quorum;

  public Redlock(List<RedisConnection> nodes, RedisKeys keys) {
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
    List<UUID> order = List.copyOf(ids);
    Map<UUID, Integer> granted =
        countPerId(
            order, (node, leaseKeys) -> PipelinedCommands.set(node, leaseKeys, holder, args));
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    long drift = (long) (ttl.toMillis() * CLOCK_DRIFT_FACTOR) + 2;
    boolean inTime = elapsedMs < ttl.toMillis() - drift;
    Set<UUID> held = new HashSet<>();
    List<UUID> partial = new ArrayList<>();
    for (UUID id : order) {
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
    return heldByQuorum(
        countPerId(
            List.copyOf(ids),
            (node, leaseKeys) ->
                PipelinedCommands.evalshaReturnsOne(node, RENEW, leaseKeys, holder, ttlMs)));
  }

  /** Releases leases this holder owns, on every node (best effort). */
  public void release(Collection<UUID> ids, String holder) {
    if (ids.isEmpty()) {
      return;
    }
    countPerId(
        List.copyOf(ids),
        (node, leaseKeys) -> PipelinedCommands.evalshaReturnsOne(node, RELEASE, leaseKeys, holder));
  }

  /** The ids among {@code ids} that some holder leases on a majority of nodes (pipelined). */
  public Set<UUID> heldAmong(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return heldByQuorum(countPerId(List.copyOf(ids), PipelinedCommands::exists));
  }

  private Set<UUID> heldByQuorum(Map<UUID, Integer> counts) {
    Set<UUID> held = new HashSet<>();
    counts.forEach(
        (id, n) -> {
          if (n >= quorum) {
            held.add(id);
          }
        });
    return held;
  }

  /** Whether any holder has a lease on {@code id} on a majority of nodes. */
  public boolean isHeld(UUID id) {
    int present = 0;
    for (RedisConnection node : nodes) {
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

  /** One command per lease key, sent to one node in one write; a future per key, in order. */
  private interface PerNode {
    List<CompletionStage<Boolean>> send(RedisConnection node, List<String> leaseKeys);
  }

  /** How many nodes answered true for each id (ids no node confirmed are absent). */
  private Map<UUID, Integer> countPerId(List<UUID> ids, PerNode perNode) {
    List<String> leaseKeys = new ArrayList<>(ids.size());
    for (UUID id : ids) {
      leaseKeys.add(keys.lease(id));
    }
    List<List<CompletionStage<Boolean>>> sent = new ArrayList<>(nodes.size());
    for (RedisConnection node : nodes) {
      try {
        sent.add(perNode.send(node, leaseKeys));
      } catch (RuntimeException e) {
        log.warn("Redlock node unavailable: {}", e.toString());
      }
    }
    Map<UUID, Integer> counts = new HashMap<>();
    for (List<CompletionStage<Boolean>> replies : sent) {
      for (int i = 0; i < replies.size(); i++) {
        try {
          CompletableFuture<Boolean> f = replies.get(i).toCompletableFuture();
          if (Boolean.TRUE.equals(f.get(NODE_TIMEOUT_MS, TimeUnit.MILLISECONDS))) {
            counts.merge(ids.get(i), 1, Integer::sum);
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
