package io.punctual.common.limit;

import io.lettuce.core.ScriptOutputType;
import io.punctual.common.job.Job;
import io.punctual.common.redis.LuaScript;
import io.punctual.common.redis.RedisConnection;
import io.punctual.common.redis.RedisKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The Redis side of limits: jobs a limit refused wait in hold sets (per concurrency key, per paused
 * type), out of the priority queues, so they block no other job; a mirror counts the slots each key
 * holds. PostgreSQL decides (limit_slots); this only decides when a held job is worth claiming
 * again: when a slot of its key is released ({@link #released}), its type resumed ({@link #drain}),
 * or the reconciler finds a key with free slots. Everything here is rebuilt from PostgreSQL.
 */
public final class LimitHolds {
  private static final LuaScript HOLD =
      LuaScript.load(LimitHolds.class, "hold.lua", ScriptOutputType.INTEGER);
  private static final LuaScript RELEASE =
      LuaScript.load(LimitHolds.class, "release.lua", ScriptOutputType.INTEGER);
  private static final LuaScript TAKEN =
      LuaScript.load(LimitHolds.class, "taken.lua", ScriptOutputType.INTEGER);
  private static final LuaScript DRAIN =
      LuaScript.load(LimitHolds.class, "drain.lua", ScriptOutputType.INTEGER);

  /** Score of a held job: its priority first, then its due time. */
  static final double RANK_WEIGHT = 1e13;

  private final RedisConnection connection;
  private final RedisKeys keys;
  private final LimitKeys limitKeys;

  public LimitHolds(RedisConnection connection, RedisKeys keys) {
    this.connection = connection;
    this.keys = keys;
    this.limitKeys = new LimitKeys(keys);
  }

  public LimitKeys keys() {
    return limitKeys;
  }

  /** A job and the attempt that holds (or held) a slot. */
  public record Holder(UUID jobId, int attempt) {}

  static String score(Job job) {
    return String.format("%.0f", job.priority().rank() * RANK_WEIGHT + job.runAt().toEpochMilli());
  }

  /**
   * Parks refused jobs of one namespace: NO_SLOT ones in their key's hold set (moved back at once
   * when the mirror shows a free slot), PAUSED ones in their type's. Returns how many went back.
   */
  public int hold(String namespace, List<ClaimOutcome.Refusal> refused) {
    Map<String, List<ClaimOutcome.Refusal>> bySet = new LinkedHashMap<>();
    Map<String, String[]> meta = new LinkedHashMap<>();
    for (ClaimOutcome.Refusal r : refused) {
      String set;
      String field;
      int concurrency;
      if (r.reason() == ClaimOutcome.Reason.PAUSED) {
        set = limitKeys.paused(namespace, r.job().type());
        field = "";
        concurrency = -1;
      } else if (r.reason() == ClaimOutcome.Reason.NO_SLOT) {
        field = LimitKeys.field(r.job().type(), r.key());
        set = limitKeys.hold(namespace, field);
        concurrency = r.concurrency() == null ? 0 : r.concurrency();
      } else {
        continue;
      }
      bySet.computeIfAbsent(set, s -> new ArrayList<>()).add(r);
      meta.put(set, new String[] {field, Integer.toString(concurrency)});
    }
    int moved = 0;
    String[] queues = keys.queues(namespace);
    for (var e : bySet.entrySet()) {
      String[] scriptKeys = new String[3 + queues.length];
      scriptKeys[0] = e.getKey();
      scriptKeys[1] = limitKeys.held(namespace);
      scriptKeys[2] = limitKeys.where(namespace);
      System.arraycopy(queues, 0, scriptKeys, 3, queues.length);
      List<String> args = new ArrayList<>();
      args.add(keys.wakeChannel(namespace));
      args.add(meta.get(e.getKey())[0]);
      args.add(meta.get(e.getKey())[1]);
      for (ClaimOutcome.Refusal r : e.getValue()) {
        args.add(r.job().id().toString());
        args.add(score(r.job()));
      }
      Long n = HOLD.run(connection.sync(), scriptKeys, args.toArray(String[]::new));
      moved += n.intValue();
    }
    return moved;
  }

  /** Records the slots a claim took (after its commit) in the mirror. */
  public void taken(String namespace, Map<UUID, SlotKey> slots, Map<UUID, Integer> attempts) {
    if (slots.isEmpty()) {
      return;
    }
    List<String> args = new ArrayList<>(slots.size() * 3);
    for (var e : slots.entrySet()) {
      args.add(e.getKey().toString());
      args.add(Integer.toString(attempts.get(e.getKey())));
      args.add(e.getValue().field());
    }
    TAKEN.run(
        connection.sync(),
        new String[] {limitKeys.held(namespace), limitKeys.holders(namespace)},
        args.toArray(String[]::new));
  }

  /**
   * Mirrors slots PostgreSQL gave back (call after the commit): for each attempt the mirror knows
   * as a holder, its key's count goes down and the head of its hold set goes back to its queue.
   * Returns how many held jobs went back.
   */
  public int released(String namespace, List<Holder> holders) {
    if (holders.isEmpty()) {
      return 0;
    }
    String[] queues = keys.queues(namespace);
    String[] scriptKeys = new String[3 + queues.length];
    scriptKeys[0] = limitKeys.held(namespace);
    scriptKeys[1] = limitKeys.holders(namespace);
    scriptKeys[2] = limitKeys.where(namespace);
    System.arraycopy(queues, 0, scriptKeys, 3, queues.length);
    List<String> args = new ArrayList<>(2 + holders.size() * 2);
    args.add(keys.wakeChannel(namespace));
    args.add(limitKeys.holdPrefix(namespace));
    for (Holder h : holders) {
      args.add(h.jobId().toString());
      args.add(Integer.toString(h.attempt()));
    }
    Long n = RELEASE.run(connection.sync(), scriptKeys, args.toArray(String[]::new));
    return n.intValue();
  }

  /** Moves up to {@code max} jobs of a hold set back to their queues; returns how many. */
  public int drain(String namespace, String holdSet, int max) {
    String[] queues = keys.queues(namespace);
    String[] scriptKeys = new String[2 + queues.length];
    scriptKeys[0] = holdSet;
    scriptKeys[1] = limitKeys.where(namespace);
    System.arraycopy(queues, 0, scriptKeys, 2, queues.length);
    Long n =
        DRAIN.run(
            connection.sync(), scriptKeys, keys.wakeChannel(namespace), Integer.toString(max));
    return n.intValue();
  }

  /** Every job of a paused type back to the queues (after a resume); returns how many. */
  public int resume(String namespace, String type) {
    int moved = 0;
    while (true) {
      int n = drain(namespace, limitKeys.paused(namespace, type), 1_000);
      moved += n;
      if (n < 1_000) {
        return moved;
      }
    }
  }

  /** Number of jobs waiting in a hold set. */
  public long size(String holdSet) {
    return connection.sync().zcard(holdSet);
  }

  /** The mirror count of a key (slots held, as Redis believes). */
  public long mirrored(String namespace, String field) {
    String v = connection.sync().hget(limitKeys.held(namespace), field);
    return v == null ? 0 : Long.parseLong(v);
  }
}
