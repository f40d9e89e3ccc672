package io.punctual.queue.lease;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import java.time.Duration;

/**
 * A lease that lets one process at a time run a background loop (promoter, planner, reaper). Hold
 * it for one pass, renew it on the next; release it in {@code finally} when stopping.
 */
public final class SingleHolderLease {
  private static final LuaScript RENEW =
      LuaScript.load(Redlock.class, "renew.lua", ScriptOutputType.INTEGER);
  private static final LuaScript RELEASE =
      LuaScript.load(Redlock.class, "release.lua", ScriptOutputType.INTEGER);

  private final RedisConnection redis;
  private final String key;
  private final String holder;
  private final Duration ttl;

  public SingleHolderLease(RedisConnection redis, String key, String holder, Duration ttl) {
    this.redis = redis;
    this.key = key;
    this.holder = holder;
    this.ttl = ttl;
  }

  /** True when this holder has the lease for another {@code ttl} (acquired now or renewed). */
  public boolean acquireOrRenew() {
    String set = redis.sync().set(key, holder, SetArgs.Builder.nx().px(ttl.toMillis()));
    if ("OK".equals(set)) {
      return true;
    }
    Long renewed =
        RENEW.run(redis.sync(), new String[] {key}, holder, Long.toString(ttl.toMillis()));
    return renewed != null && renewed == 1L;
  }

  public void release() {
    RELEASE.run(redis.sync(), new String[] {key}, holder);
  }
}
