package io.punctual.queue.limit;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.punctual.model.Job;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.SlotKey;
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
 *
 * <p>A held job waits in the shard of its queue entry and goes back to that shard's queue (see
 * {@link LimitKeys}); each script runs on one slot. Parking and the mirror check, and the mirror's
 * release and the wake-up, are two steps each (the mirror is on the namespace's slot): each step of
 * one side is ordered so that it sees the other side's first step, so a wake-up is not lost; at
 * worst a job is woken twice and the claim statement, which holds the limit, parks it again.
 */
public final class LimitHolds {
  private static final LuaScript HOLD =
      LuaScript.load(LimitHolds.class, "hold.lua", ScriptOutputType.INTEGER);
  private static final LuaScript RELEASE =
      LuaScript.load(LimitHolds.class, "release.lua", ScriptOutputType.MULTI);
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
   * Parks refused jobs of one namespace, each in the shard of its queue entry: NO_SLOT ones in
   * their key's hold set (moved back at once when the mirror shows a free slot), PAUSED ones in
   * their type's. Returns how many went back.
   */
  public int hold(String namespace, List<ClaimOutcome.Refusal> refused) {
    record Set(int shard, String key, String field, int concurrency) {}
    Map<Set, List<ClaimOutcome.Refusal>> bySet = new LinkedHashMap<>();
    for (ClaimOutcome.Refusal r : refused) {
      int shard = keys.shardOf(r.job().id());
      Set set;
      if (r.reason() == ClaimOutcome.Reason.PAUSED) {
        set = new Set(shard, limitKeys.paused(namespace, shard, r.job().type()), "", -1);
      } else if (r.reason() == ClaimOutcome.Reason.NO_SLOT) {
        String field = LimitKeys.field(r.job().type(), r.key());
        int concurrency = r.concurrency() == null ? 0 : r.concurrency();
        set = new Set(shard, limitKeys.hold(namespace, shard, field), field, concurrency);
      } else {
        continue;
      }
      bySet.computeIfAbsent(set, s -> new ArrayList<>()).add(r);
    }
    int moved = 0;
    for (var e : bySet.entrySet()) {
      Set set = e.getKey();
      List<String> args = new ArrayList<>();
      for (ClaimOutcome.Refusal r : e.getValue()) {
        args.add(r.job().id().toString());
        args.add(score(r.job()));
      }
      HOLD.run(
          connection.sync(),
          new String[] {set.key(), limitKeys.where(namespace, set.shard())},
          args.toArray(String[]::new));
      if (set.concurrency() < 0) {
        continue;
      }
      // Read after the park: a release that decremented the count before this read finds the
      // count lower here; one that decremented it after finds the parked job (it looks after).
      long free = set.concurrency() - mirrored(namespace, set.field());
      if (free > 0) {
        moved += drain(namespace, set.shard(), set.key(), (int) Math.min(free, 10_000));
      }
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
      args.add(LimitKeys.field(e.getValue().type(), e.getValue().key()));
    }
    TAKEN.run(
        connection.sync(),
        new String[] {limitKeys.held(namespace), limitKeys.holders(namespace)},
        args.toArray(String[]::new));
  }

  /**
   * Mirrors slots PostgreSQL gave back (call after the commit): for each attempt the mirror knows
   * as a holder, its key's count goes down, then the best head of the key's hold sets (lowest
   * priority rank, then earliest due, over all shards) goes back to its own shard's queue. Returns
   * how many held jobs went back.
   */
  public int released(String namespace, List<Holder> holders) {
    if (holders.isEmpty()) {
      return 0;
    }
    List<String> args = new ArrayList<>(holders.size() * 2);
    for (Holder h : holders) {
      args.add(h.jobId().toString());
      args.add(Integer.toString(h.attempt()));
    }
    List<String> fields =
        RELEASE.run(
            connection.sync(),
            new String[] {limitKeys.held(namespace), limitKeys.holders(namespace)},
            args.toArray(String[]::new));
    int moved = 0;
    for (String field : fields) {
      moved += wakeOne(namespace, field);
    }
    return moved;
  }

  /** Moves the best head of a key's hold sets (over all shards) to its queue; 1 if it did. */
  private int wakeOne(String namespace, String field) {
    int shards = keys.shards();
    if (shards == 1) {
      return drain(namespace, 0, limitKeys.hold(namespace, 0, field), 1);
    }
    List<ScoredValue<String>> heads = new ArrayList<>(shards);
    List<Integer> shardOfHead = new ArrayList<>(shards);
    for (int shard = 0; shard < shards; shard++) {
      List<ScoredValue<String>> head =
          connection.sync().zrangeWithScores(limitKeys.hold(namespace, shard, field), 0, 0);
      if (!head.isEmpty()) {
        heads.add(head.get(0));
        shardOfHead.add(shard);
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      order.add(i);
    }
    order.sort((a, b) -> Double.compare(heads.get(a).getScore(), heads.get(b).getScore()));
    for (int i : order) {
      int shard = shardOfHead.get(i);
      // Another releaser may have taken that head meanwhile: then the next best.
      if (drain(namespace, shard, limitKeys.hold(namespace, shard, field), 1) == 1) {
        return 1;
      }
    }
    return 0;
  }

  /**
   * Moves up to {@code max} jobs of a hold set of shard {@code shard} back to that shard's queues;
   * returns how many.
   */
  public int drain(String namespace, int shard, String holdSet, int max) {
    String[] queues = keys.queues(namespace, shard);
    String[] scriptKeys = new String[2 + queues.length];
    scriptKeys[0] = holdSet;
    scriptKeys[1] = limitKeys.where(namespace, shard);
    System.arraycopy(queues, 0, scriptKeys, 2, queues.length);
    Long n =
        DRAIN.run(
            connection.sync(), scriptKeys, keys.wakeChannel(namespace), Integer.toString(max));
    return n.intValue();
  }

  /** Every job of a paused type back to the queues (after a resume); returns how many. */
  public int resume(String namespace, String type) {
    int moved = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      while (true) {
        int n = drain(namespace, shard, limitKeys.paused(namespace, shard, type), 1_000);
        moved += n;
        if (n < 1_000) {
          break;
        }
      }
    }
    return moved;
  }

  /** Jobs of a key waiting for a slot, over all shards. */
  public long waiting(String namespace, String field) {
    long n = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      n += size(limitKeys.hold(namespace, shard, field));
    }
    return n;
  }

  /** Jobs of a paused type waiting for its resume, over all shards. */
  public long waitingPaused(String namespace, String type) {
    long n = 0;
    for (int shard = 0; shard < keys.shards(); shard++) {
      n += size(limitKeys.paused(namespace, shard, type));
    }
    return n;
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
