package io.punctual.queue.lease;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.PipelinedCommands;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redlock leases on one or N independent Redis nodes, for many jobs at once: a standalone node gets
 * one script call for a whole batch of keys (acquire-many.lua, renew-many.lua, release-many.lua), a
 * cluster one command per key in one pipelined write (each key on its own slot), and a lease counts
 * when a majority of nodes granted it within its validity time. A lease is a liveness signal, not a
 * guarantee of exclusivity (pauses and clock drift can outlive it): the attempt number checked by
 * PostgreSQL is what fences a stale worker.
 *
 * <p>With a restart delay (Redlock's "delayed restart"), a node whose data is younger than the
 * delay (it restarted empty, or was flushed) takes no part in acquiring or renewing: its grants are
 * not counted until the delay, at least the longest lease TTL, has passed on its clock, by when
 * every lease it forgot has expired on the other nodes too. Without it, a node that forgot a lease
 * held by a bare majority could grant it a second time. The age is a marker written on the node and
 * read in the same pipeline, after the lease commands ({@code node-age.lua}).
 */
public final class Redlock {
  private static final Logger log = LoggerFactory.getLogger(Redlock.class);
  private static final LuaScript RENEW =
      LuaScript.load(Redlock.class, "renew.lua", ScriptOutputType.INTEGER);
  private static final LuaScript RELEASE =
      LuaScript.load(Redlock.class, "release.lua", ScriptOutputType.INTEGER);
  private static final LuaScript NODE_AGE =
      LuaScript.load(Redlock.class, "node-age.lua", ScriptOutputType.INTEGER);
  private static final LuaScript ACQUIRE_MANY =
      LuaScript.load(Redlock.class, "acquire-many.lua", ScriptOutputType.MULTI);
  private static final LuaScript RENEW_MANY =
      LuaScript.load(Redlock.class, "renew-many.lua", ScriptOutputType.MULTI);
  private static final LuaScript RELEASE_MANY =
      LuaScript.load(Redlock.class, "release-many.lua", ScriptOutputType.MULTI);

  /**
   * The most lease keys one script call on a standalone node takes: a batch runs as one script per
   * this many keys, so that no call holds the node for long.
   */
  static final int KEYS_PER_SCRIPT = 512;

  private static final double CLOCK_DRIFT_FACTOR = 0.01;
  private static final long NODE_TIMEOUT_MS = 2_000;

  private final List<RedisConnection> nodes;
  private final RedisKeys keys;
  private final int quorum;
  private final long restartDelayMs;
  private final AtomicBoolean[] waiting;

  /** Without a restart delay: every node that answers counts (one node; or tests). */
  public Redlock(List<RedisConnection> nodes, RedisKeys keys) {
    this(nodes, keys, Duration.ZERO);
  }

  /**
   * @param restartDelay how long a node that lost its data takes no part (zero: always counts); at
   *     least the longest lease TTL any holder asks for
   */
  public Redlock(List<RedisConnection> nodes, RedisKeys keys, Duration restartDelay) {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("Redlock needs at least one node");
    }
    if (restartDelay.isNegative()) {
      throw new IllegalArgumentException("restartDelay must not be negative");
    }
    this.nodes = List.copyOf(nodes);
    this.keys = keys;
    this.quorum = nodes.size() / 2 + 1;
    this.restartDelayMs = restartDelay.toMillis();
    this.waiting = new AtomicBoolean[nodes.size()];
    for (int i = 0; i < waiting.length; i++) {
      waiting[i] = new AtomicBoolean();
    }
  }

  /** How many nodes sat out their restart delay at their last acquire or renew. */
  public int nodesWaitingOutRestart() {
    int n = 0;
    for (AtomicBoolean w : waiting) {
      if (w.get()) {
        n++;
      }
    }
    return n;
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
    String ttlMs = Long.toString(ttl.toMillis());
    List<UUID> order = List.copyOf(ids);
    Tally tally =
        tally(
            order,
            (node, leaseKeys) ->
                node.isCluster()
                    ? perKey(PipelinedCommands.set(node, leaseKeys, holder, args))
                    : batched(node, ACQUIRE_MANY, leaseKeys, holder, ttlMs),
            restartDelayMs > 0);
    Map<UUID, Integer> granted = tally.counted();
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    boolean inTime = validityMs(ttl.toMillis(), elapsedMs) > 0;
    Set<UUID> held = new HashSet<>();
    List<UUID> partial = new ArrayList<>();
    for (UUID id : order) {
      int nodesGranted = granted.getOrDefault(id, 0);
      if (inTime && nodesGranted >= quorum) {
        held.add(id);
      } else if (tally.answered().getOrDefault(id, 0) > 0) {
        partial.add(id); // granted somewhere, counted or not (a node in its restart delay)
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

  /**
   * How long a lease granted {@code elapsedMs} after the first request is still valid: its TTL less
   * the time the nodes took and an allowance for the nodes' clocks running fast (1 % of the TTL, +2
   * ms). Not positive: the lease is not held.
   */
  static long validityMs(long ttlMs, long elapsedMs) {
    long drift = (long) (ttlMs * CLOCK_DRIFT_FACTOR) + 2;
    return ttlMs - elapsedMs - drift;
  }

  /** Extends leases this holder owns; returns the ids still held by a majority. */
  public Set<UUID> renew(Collection<UUID> ids, String holder, Duration ttl) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    String ttlMs = Long.toString(ttl.toMillis());
    return heldByQuorum(
        tally(
                List.copyOf(ids),
                (node, leaseKeys) ->
                    node.isCluster()
                        ? perKey(
                            PipelinedCommands.evalshaReturnsOne(
                                node, RENEW, leaseKeys, holder, ttlMs))
                        : batched(node, RENEW_MANY, leaseKeys, holder, ttlMs),
                restartDelayMs > 0)
            .counted());
  }

  /**
   * Extends the leases this holder owns and takes those nobody holds (expired, released, or lost
   * with Redis's data); returns the ids held now. A lease another holder has stays theirs.
   */
  public Set<UUID> renewOrAcquire(Collection<UUID> ids, String holder, Duration ttl) {
    Set<UUID> held = new HashSet<>(renew(ids, holder, ttl));
    List<UUID> gone = new ArrayList<>();
    for (UUID id : ids) {
      if (!held.contains(id)) {
        gone.add(id);
      }
    }
    held.addAll(acquire(gone, holder, ttl));
    return held;
  }

  /** Releases leases this holder owns, on every node (best effort). */
  public void release(Collection<UUID> ids, String holder) {
    if (ids.isEmpty()) {
      return;
    }
    tally(
        List.copyOf(ids),
        (node, leaseKeys) ->
            node.isCluster()
                ? perKey(PipelinedCommands.evalshaReturnsOne(node, RELEASE, leaseKeys, holder))
                : batched(node, RELEASE_MANY, leaseKeys, holder),
        false);
  }

  /** The ids among {@code ids} that some holder leases on a majority of nodes (pipelined). */
  public Set<UUID> heldAmong(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    // Every node counts here, one in its restart delay too: a "held" only delays a rescue.
    return heldByQuorum(
        tally(
                List.copyOf(ids),
                (node, leaseKeys) -> perKey(PipelinedCommands.exists(node, leaseKeys)),
                false)
            .counted());
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

  /** Sends the commands for all lease keys to one node; their answers, one per key, in order. */
  private interface PerNode {
    Replies send(RedisConnection node, List<String> leaseKeys);
  }

  /** A node's answers to one call's keys, awaited (each up to the node timeout). */
  private interface Replies {
    /** One answer per key, in order: true, false, or null (the node failed or did not answer). */
    Boolean[] await();
  }

  /** One command per key in one write (a cluster: each key goes to its own slot's master). */
  private static Replies perKey(List<CompletionStage<Boolean>> replies) {
    return () -> {
      Boolean[] out = new Boolean[replies.size()];
      for (int i = 0; i < out.length && !Thread.currentThread().isInterrupted(); i++) {
        out[i] = Redlock.await(replies.get(i));
      }
      return out;
    };
  }

  /**
   * The keys in one script call per {@link #KEYS_PER_SCRIPT} keys (a standalone node: one key's
   * command per key costs a command parse, a reply and a future each, on Redis and here alike); the
   * script answers 1 or 0 per key.
   */
  private static Replies batched(
      RedisConnection node, LuaScript script, List<String> leaseKeys, String... args) {
    List<CompletionStage<List<Object>>> calls = new ArrayList<>();
    for (int from = 0; from < leaseKeys.size(); from += KEYS_PER_SCRIPT) {
      List<String> part =
          leaseKeys.subList(from, Math.min(leaseKeys.size(), from + KEYS_PER_SCRIPT));
      calls.add(script.runAsync(node.async(), part.toArray(String[]::new), args));
    }
    return () -> {
      Boolean[] out = new Boolean[leaseKeys.size()];
      int i = 0;
      for (CompletionStage<List<Object>> call : calls) {
        List<Object> answers = Redlock.await(call);
        int n = Math.min(KEYS_PER_SCRIPT, out.length - i);
        for (int k = 0; k < n; k++, i++) {
          out[i] = answers == null ? null : Long.valueOf(1L).equals(answers.get(k));
        }
      }
      return out;
    };
  }

  /**
   * How many nodes answered true for each id: {@code counted}, those of nodes that take part;
   * {@code answered}, those of every node (ids no node confirmed are absent).
   */
  private record Tally(Map<UUID, Integer> counted, Map<UUID, Integer> answered) {}

  /**
   * Sends the commands to every node and counts the answers. With {@code checkAge}, each node's
   * data age is read after its commands, in the same pipeline; a node whose data is younger than
   * the restart delay (or whose age did not come back) is not counted.
   */
  private Tally tally(List<UUID> ids, PerNode perNode, boolean checkAge) {
    List<String> leaseKeys = new ArrayList<>(ids.size());
    for (UUID id : ids) {
      leaseKeys.add(keys.lease(id));
    }
    String[] marker = {keys.leaseNodeDataSince()};
    Map<Integer, Replies> sent = new HashMap<>();
    Map<Integer, CompletionStage<Long>> ages = new HashMap<>();
    for (int n = 0; n < nodes.size(); n++) {
      RedisConnection node = nodes.get(n);
      try {
        sent.put(n, perNode.send(node, leaseKeys));
        if (checkAge) {
          ages.put(n, NODE_AGE.runAsync(node.async(), marker));
        }
      } catch (RuntimeException e) {
        log.warn("Redlock node unavailable: {}", e.toString());
      }
    }
    Map<UUID, Integer> counted = new HashMap<>();
    Map<UUID, Integer> answered = new HashMap<>();
    for (Map.Entry<Integer, Replies> e : sent.entrySet()) {
      Boolean[] replies = e.getValue().await();
      if (Thread.currentThread().isInterrupted()) {
        return new Tally(counted, answered);
      }
      boolean[] yes = new boolean[replies.length];
      for (int i = 0; i < replies.length; i++) {
        yes[i] = Boolean.TRUE.equals(replies[i]);
        if (yes[i]) {
          answered.merge(ids.get(i), 1, Integer::sum);
        }
      }
      boolean takesPart = !checkAge || pastRestartDelay(e.getKey(), await(ages.get(e.getKey())));
      for (int i = 0; i < yes.length && takesPart; i++) {
        if (yes[i]) {
          counted.merge(ids.get(i), 1, Integer::sum);
        }
      }
    }
    return new Tally(counted, answered);
  }

  /** Whether node {@code n}, whose data is {@code ageMs} old (null: unknown), takes part. */
  private boolean pastRestartDelay(int n, Long ageMs) {
    if (ageMs == null) {
      return false; // down or slow: counted as a "no", as its lease answers are
    }
    boolean past = ageMs >= restartDelayMs;
    boolean wasWaiting = waiting[n].getAndSet(!past);
    if (!past && !wasWaiting) {
      log.warn(
          "Redlock node {} has kept its data for {} ms only (restarted empty, or flushed): it takes"
              + " no part in leases until {} ms have passed",
          n,
          ageMs,
          restartDelayMs);
    } else if (past && wasWaiting) {
      log.info("Redlock node {} takes part in leases again", n);
    }
    return past;
  }

  /** The reply, or null when the node failed or did not answer within the node timeout. */
  private static <T> T await(CompletionStage<T> reply) {
    try {
      return reply.toCompletableFuture().get(NODE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      log.debug("Redlock command failed on a node: {}", e.toString());
      return null;
    }
  }
}
