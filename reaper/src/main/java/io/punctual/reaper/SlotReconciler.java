package io.punctual.reaper;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.ScriptOutputType;
import io.punctual.queue.limit.LimitHolds;
import io.punctual.queue.limit.LimitKeys;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.store.limit.LimitStore;
import io.punctual.store.sql.SqlFiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the limits' slots honest, each pass:
 *
 * <ul>
 *   <li>PostgreSQL: compares the slots held (limits' and namespaces' running caps) with the
 *       attempts RUNNING; a slot whose attempt is not RUNNING any more is given back (counted:
 *       {@link Repairs#slotsFreed()}, the metric {@code punctual.reaper.limitSlotsRepaired});
 *   <li>Redis: the mirror (slots per key, holders) is rebuilt from PostgreSQL's slots, and every
 *       hold set whose key has free slots (or whose limit or pause is gone) gives back that many
 *       jobs to their queues, so a wake-up lost to a crash waits one pass at most.
 * </ul>
 */
public final class SlotReconciler {
  private static final Logger log = LoggerFactory.getLogger(SlotReconciler.class);
  private static final SqlFiles SQL = new SqlFiles(SlotReconciler.class);
  private static final LuaScript MIRROR =
      LuaScript.load(SlotReconciler.class, "mirror.lua", ScriptOutputType.INTEGER);

  private final Jdbi jdbi;
  private final RedisConnection redis;
  private final LimitHolds holds;
  private final LimitStore limits;
  private final LimitKeys keys;

  public SlotReconciler(Jdbi jdbi, RedisConnection redis, LimitHolds holds, LimitStore limits) {
    this.jdbi = jdbi;
    this.redis = redis;
    this.holds = holds;
    this.limits = limits;
    this.keys = holds.keys();
  }

  /** What one pass repaired. */
  public record Repairs(int slotsFreed, int mirrorFixed, int woken) {}

  public Repairs runOnce() {
    int freed = repairSlots();
    int mirrored = rebuildMirror();
    int woken = wakeHeld();
    if (freed > 0 || mirrored > 0 || woken > 0) {
      log.warn(
          "reconciled limits: {} slots held by attempts no longer running given back, {} mirror"
              + " counts corrected, {} held jobs woken",
          freed,
          mirrored,
          woken);
    }
    return new Repairs(freed, mirrored, woken);
  }

  private record Slot(String namespace, String type, String key, UUID jobId, int attempt) {}

  private int repairSlots() {
    List<Slot> freed =
        jdbi.withHandle(h -> h.createQuery(SQL.get("repair")).map(SlotReconciler::slot).list());
    for (Slot s : freed) {
      log.warn(
          "{} slot given back: attempt no longer running job={} attempt={} namespace={} type={}",
          s.type() == null ? "namespace" : "limit",
          s.jobId(),
          s.attempt(),
          s.namespace(),
          s.type());
    }
    return freed.size();
  }

  private int rebuildMirror() {
    List<Slot> held =
        jdbi.withHandle(h -> h.createQuery(SQL.get("held")).map(SlotReconciler::slot).list());
    Map<String, List<Slot>> byNamespace = new LinkedHashMap<>();
    for (Slot s : held) {
      byNamespace.computeIfAbsent(s.namespace(), n -> new ArrayList<>()).add(s);
    }
    // Namespaces whose mirror says something while PostgreSQL holds nothing are found by their
    // keys: emptied too.
    ScanIterator<String> mirrors =
        ScanIterator.scan(redis.sync(), ScanArgs.Builder.matches(keys.held("*")).limit(100));
    while (mirrors.hasNext()) {
      String key = mirrors.next();
      byNamespace.putIfAbsent(namespaceOf(key), new ArrayList<>());
    }
    int changed = 0;
    for (var e : byNamespace.entrySet()) {
      List<String> args = new ArrayList<>();
      for (Slot s : e.getValue()) {
        args.add(s.jobId().toString());
        args.add(Integer.toString(s.attempt()));
        args.add(LimitKeys.field(s.type(), s.key()));
      }
      Long n =
          MIRROR.run(
              redis.sync(),
              new String[] {keys.held(e.getKey()), keys.holders(e.getKey())},
              args.toArray(String[]::new));
      changed += n.intValue();
    }
    return changed;
  }

  private int wakeHeld() {
    int woken = 0;
    Set<String> seen = new HashSet<>();
    // Free slots per namespace and key, shared by the key's hold sets of every shard.
    Map<String, Integer> freeByKey = new HashMap<>();
    ScanIterator<String> sets =
        ScanIterator.scan(redis.sync(), ScanArgs.Builder.matches(keys.pattern()).limit(100));
    while (sets.hasNext()) {
      String key = sets.next();
      if (!seen.add(key)) {
        continue;
      }
      Optional<LimitKeys.WaitingSet> parsed = keys.parse(key);
      if (parsed.isEmpty()) {
        continue;
      }
      LimitKeys.WaitingSet set = parsed.get();
      String namespace = set.namespace();
      if (!set.paused()) {
        String field = set.name();
        int nul = field.indexOf('\0');
        if (nul < 0) {
          continue;
        }
        int free =
            freeByKey.computeIfAbsent(
                namespace + '\0' + field,
                k -> {
                  Room room = room(namespace, field.substring(0, nul), field.substring(nul + 1));
                  return room.concurrency() == null
                      ? Integer.MAX_VALUE
                      : room.concurrency() - room.held();
                });
        if (free > 0) {
          int n = holds.drain(namespace, set.shard(), key, Math.min(free, 10_000));
          woken += n;
          if (free != Integer.MAX_VALUE) {
            freeByKey.put(namespace + '\0' + field, free - n);
          }
        }
      } else if (limits.paused(namespace).stream().noneMatch(p -> p.type().equals(set.name()))) {
        int n;
        do {
          n = holds.drain(namespace, set.shard(), key, 1_000);
          woken += n;
        } while (n == 1_000);
      }
    }
    return woken;
  }

  private record Room(Integer concurrency, int held) {}

  private Room room(String namespace, String type, String key) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("room"))
                .bind("namespace", namespace)
                .bind("type", type)
                .bind("key", key)
                .map(
                    (rs, ctx) -> {
                      int c = rs.getInt("concurrency");
                      Integer concurrency = rs.wasNull() ? null : c;
                      return new Room(concurrency, rs.getInt("held"));
                    })
                .one());
  }

  private String namespaceOf(String key) {
    String head = keys.redisKeys().prefix() + ":{";
    return key.substring(head.length(), key.indexOf("}:lim:", head.length()));
  }

  private static Slot slot(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
      throws java.sql.SQLException {
    return new Slot(
        rs.getString("namespace"),
        rs.getString("type"),
        rs.getString("key"),
        rs.getObject("job_id", UUID.class),
        rs.getInt("attempt"));
  }
}
