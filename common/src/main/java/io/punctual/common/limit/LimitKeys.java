package io.punctual.common.limit;

import io.punctual.common.redis.RedisKeys;

/**
 * The Redis keys of the limits of a namespace, tagged {@code {namespace}} like its queues so that
 * every script sees them on one cluster slot. A key's field is its type and value apart by a NUL
 * (PostgreSQL text holds no NUL, so it splits one way only).
 */
public final class LimitKeys {
  private final RedisKeys keys;

  public LimitKeys(RedisKeys keys) {
    this.keys = keys;
  }

  public RedisKeys redisKeys() {
    return keys;
  }

  public static String field(String type, String key) {
    return type + '\0' + (key == null ? "" : key);
  }

  /** The hold set of a concurrency key: jobs waiting for one of its slots. */
  public String hold(String namespace, String field) {
    return holdPrefix(namespace) + field;
  }

  /** What every hold set of a namespace's keys starts with (the field follows). */
  public String holdPrefix(String namespace) {
    return base(namespace) + "hold:";
  }

  /** The hold set of a paused type. */
  public String paused(String namespace, String type) {
    return base(namespace) + "paused:" + type;
  }

  /** Mirror counts: field -> slots held (PostgreSQL's limit_slots is the truth). */
  public String held(String namespace) {
    return base(namespace) + "held";
  }

  /** Slot holders: job id -> attempt NUL field. */
  public String holders(String namespace) {
    return base(namespace) + "holders";
  }

  /** Where each held job is: job id -> hold set key. */
  public String where(String namespace) {
    return base(namespace) + "where";
  }

  /** A glob matching every hold set of every namespace (for SCAN). */
  public String holdPattern() {
    return keys.prefix() + ":{*}:lim:hold:*";
  }

  private String base(String namespace) {
    return keys.prefix() + ":{" + namespace + "}:lim:";
  }
}
