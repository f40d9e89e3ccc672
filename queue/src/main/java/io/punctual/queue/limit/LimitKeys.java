package io.punctual.queue.limit;

import io.punctual.queue.redis.RedisKeys;
import java.util.Optional;

/**
 * The Redis keys of the limits of a namespace. A key's field is its type and value apart by a NUL
 * (PostgreSQL text holds no NUL, so it splits one way only).
 *
 * <p>Two kinds of keys, on two kinds of slots:
 *
 * <ul>
 *   <li>the mirror ({@link #held}, {@link #holders}): one per namespace, tagged {@code {namespace}}
 *       (the slot of shard 0), since a limit counts the slots of the whole namespace;
 *   <li>the waiting jobs ({@link #hold}, {@link #paused}, {@link #where}): one set of them per
 *       queue shard, tagged like that shard's queues ({@code {namespace}}, {@code {namespace#i}}),
 *       so the script that moves a held job back to its queue stays on one slot and the job goes
 *       back to the shard it came from ({@link RedisKeys#shardOf}). With one shard, everything is
 *       on {@code {namespace}}.
 * </ul>
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

  /** The hold set of a concurrency key in one shard: its jobs waiting for one of its slots. */
  public String hold(String namespace, int shard, String field) {
    return holdPrefix(namespace, shard) + field;
  }

  /** The hold set of a concurrency key in shard 0 (the only one of an unsharded queue). */
  public String hold(String namespace, String field) {
    return hold(namespace, 0, field);
  }

  /** What every hold set of a namespace's shard starts with (the field follows). */
  public String holdPrefix(String namespace, int shard) {
    return base(namespace, shard) + "hold:";
  }

  /** The hold set of a paused type in one shard. */
  public String paused(String namespace, int shard, String type) {
    return pausedPrefix(namespace, shard) + type;
  }

  /** The hold set of a paused type in shard 0 (the only one of an unsharded queue). */
  public String paused(String namespace, String type) {
    return paused(namespace, 0, type);
  }

  private String pausedPrefix(String namespace, int shard) {
    return base(namespace, shard) + "paused:";
  }

  /** Mirror counts: field -> slots held (PostgreSQL's limit_slots is the truth). */
  public String held(String namespace) {
    return base(namespace, 0) + "held";
  }

  /** Slot holders: job id -> attempt NUL field. */
  public String holders(String namespace) {
    return base(namespace, 0) + "holders";
  }

  /** Where each held job of one shard is: job id -> hold set key. */
  public String where(String namespace, int shard) {
    return base(namespace, shard) + "where";
  }

  /** A glob matching every hold set of every namespace and shard (for SCAN). */
  public String holdPattern() {
    return keys.prefix() + ":{*}:lim:hold:*";
  }

  /** A glob matching every key of the limits (for SCAN). */
  public String pattern() {
    return keys.prefix() + ":{*}:lim:*";
  }

  /** A set of waiting jobs taken apart: a key's hold set ({@code field}) or a paused type's. */
  public record WaitingSet(String namespace, int shard, boolean paused, String name) {}

  /** The namespace, shard and kind of a hold or paused set; empty for other keys. */
  public Optional<WaitingSet> parse(String key) {
    String head = keys.prefix() + ":{";
    int close = key.indexOf("}:lim:", head.length());
    if (!key.startsWith(head) || close < 0) {
      return Optional.empty();
    }
    Optional<RedisKeys.Tag> tag = RedisKeys.parseTag(key.substring(head.length(), close));
    if (tag.isEmpty()) {
      return Optional.empty();
    }
    String namespace = tag.get().namespace();
    int shard = tag.get().shard();
    String hold = holdPrefix(namespace, shard);
    String paused = pausedPrefix(namespace, shard);
    if (key.startsWith(hold)) {
      return Optional.of(new WaitingSet(namespace, shard, false, key.substring(hold.length())));
    }
    if (key.startsWith(paused)) {
      return Optional.of(new WaitingSet(namespace, shard, true, key.substring(paused.length())));
    }
    return Optional.empty();
  }

  private String base(String namespace, int shard) {
    return keys.prefix() + ":" + RedisKeys.tag(namespace, shard) + ":lim:";
  }
}
