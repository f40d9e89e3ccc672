package io.punctual.queue.liveness;

import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * The jobs whose claims a worker holds without having written them to PostgreSQL (a plain claim is
 * read, and written only if its attempt outlives {@code worker.claimWriteAfter}): one Redis set per
 * worker. Their rows are still PENDING, so neither the death watch's read of a dead worker's
 * RUNNING attempts nor the rescue on heartbeats would see them, and their leases would keep them
 * from other workers for {@code worker.leaseTtl}. A worker adds a claim's jobs before it takes
 * their leases and takes them out once each claim is written, its attempt's end recorded, or the
 * claim given up; the death watch reads a dead worker's set, writes the claims it still leases in
 * its name and rescues them with its other attempts. A member left behind (a worker that died
 * between two steps) is harmless: the death watch acts only on jobs still PENDING and leased by
 * that worker.
 */
public final class HeldClaims {
  private final RedisConnection redis;
  private final RedisKeys keys;

  public HeldClaims(RedisConnection redis, RedisKeys keys) {
    this.redis = redis;
    this.keys = keys;
  }

  /** Adds {@code ids} to {@code workerId}'s held claims. */
  public void hold(String workerId, Collection<UUID> ids) {
    if (!ids.isEmpty()) {
      redis.sync().sadd(keys.heldClaims(workerId), strings(ids));
    }
  }

  /** Takes {@code ids} out of {@code workerId}'s held claims. */
  public void letGo(String workerId, Collection<UUID> ids) {
    if (!ids.isEmpty()) {
      redis.sync().srem(keys.heldClaims(workerId), strings(ids));
    }
  }

  /**
   * Up to {@code max} of the jobs {@code workerId} holds unwritten claims of (Redis reads no more).
   */
  public List<UUID> of(String workerId, int max) {
    List<UUID> out = new ArrayList<>();
    for (String m : redis.sync().srandmember(keys.heldClaims(workerId), max)) {
      out.add(UUID.fromString(m));
    }
    return out;
  }

  /** Forgets {@code workerId}'s set (the death watch, once the worker is buried). */
  public void forget(String workerId) {
    redis.sync().del(keys.heldClaims(workerId));
  }

  private static String[] strings(Collection<UUID> ids) {
    return ids.stream().map(UUID::toString).toArray(String[]::new);
  }
}
