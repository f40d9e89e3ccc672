package io.punctual.queue.liveness;

import io.lettuce.core.ScriptOutputType;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which workers are alive, in one Redis sorted set: each worker renews its entry every {@code
 * worker.livenessInterval} with a deadline {@code worker.livenessTtl} ahead, on the Redis server's
 * clock. A reaper reads the entries whose deadline passed and rescues those workers' attempts at
 * once ({@code reaper}'s DeathWatch), then takes them out.
 *
 * <p>A set rather than one expiring key per worker: an expired key is gone, so only a reaper that
 * saw it alive (or a keyspace notification, which Redis does not deliver reliably) could tell a
 * death; an entry past its deadline stays until a reaper acted on it, so any reaper, one started
 * later or one of several, sees every death. When Redis restarts empty the set is empty: no worker
 * seems dead, each is back within one renewal, and a worker that died meanwhile is found by the
 * slower rescue on PostgreSQL heartbeats ({@code reaper.rescueAfter}).
 */
public final class WorkerLiveness {
  private static final LuaScript RENEW =
      LuaScript.load(WorkerLiveness.class, "renew.lua", ScriptOutputType.INTEGER);
  private static final LuaScript EXPIRED =
      LuaScript.load(WorkerLiveness.class, "expired.lua", ScriptOutputType.MULTI);
  private static final LuaScript FORGET =
      LuaScript.load(WorkerLiveness.class, "forget.lua", ScriptOutputType.INTEGER);

  private final RedisConnection redis;
  private final String key;

  public WorkerLiveness(RedisConnection redis, RedisKeys keys) {
    this.redis = redis;
    this.key = keys.workersAlive();
  }

  /** A worker whose deadline passed: its id, when it last reported in, and its entry's deadline. */
  public record Dead(String workerId, Instant lastSeen, long deadlineMs, String member) {}

  /** What one read of the set found: the dead workers and the Redis clock's now. */
  public record Expired(List<Dead> dead, Instant redisNow) {}

  /**
   * Reports {@code workerId} alive for {@code ttl} from now (Redis clock); returns the deadline.
   */
  public Instant renew(String workerId, Duration ttl) {
    Long deadline = RENEW.run(redis.sync(), new String[] {key}, member(workerId, ttl), ms(ttl));
    return Instant.ofEpochMilli(deadline);
  }

  /** Takes {@code workerId} out of the set (a worker stopping gracefully, its attempts ended). */
  public void leave(String workerId, Duration ttl) {
    redis.sync().zrem(key, member(workerId, ttl));
  }

  /** Up to {@code max} workers whose deadline passed, oldest first. */
  public Expired expired(int max) {
    List<Object> out = EXPIRED.run(redis.sync(), new String[] {key}, Integer.toString(max));
    List<Dead> dead = new ArrayList<>();
    for (int i = 0; i + 1 < out.size(); i += 2) {
      String member = (String) out.get(i);
      long deadline = (long) Double.parseDouble((String) out.get(i + 1));
      int colon = member.indexOf(':');
      long ttlMs = colon > 0 ? parseOr(member.substring(0, colon), 0) : 0;
      String workerId = colon > 0 ? member.substring(colon + 1) : member;
      dead.add(new Dead(workerId, Instant.ofEpochMilli(deadline - ttlMs), deadline, member));
    }
    Instant now = Instant.ofEpochMilli(Long.parseLong((String) out.get(out.size() - 1)));
    return new Expired(dead, now);
  }

  /**
   * Takes a dead worker's entry out once its attempts were rescued, unless it reported in meanwhile
   * (then it is alive: a pause longer than its ttl, whose late writes the attempt number refuses).
   */
  public boolean forget(Dead dead) {
    Long removed =
        FORGET.run(
            redis.sync(), new String[] {key}, dead.member(), Long.toString(dead.deadlineMs()));
    return removed != null && removed > 0;
  }

  private static String member(String workerId, Duration ttl) {
    return ms(ttl) + ":" + workerId;
  }

  private static String ms(Duration d) {
    return Long.toString(d.toMillis());
  }

  private static long parseOr(String s, long fallback) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
