package io.punctual.reaper;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue;
import io.punctual.queue.ReadyQueue.ShardOf;
import io.punctual.queue.limit.LimitKeys;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import io.punctual.queue.redis.RedisKeys;
import io.punctual.queue.redis.RedisKeys.QueueKey;
import io.punctual.store.JobQueries;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Redis agree with PostgreSQL for jobs due more than {@code reconcileAfter} ago:
 *
 * <ul>
 *   <li>a PENDING job that is not in its queue is added again (the API died between its commit and
 *       its enqueue, a worker died between its Redis claim and PostgreSQL, an enqueue failed); A
 *       job waiting in a hold set of the limits is not missing;
 *   <li>a queue entry whose job is no longer PENDING (or no longer exists) is removed, unless it
 *       was re-added meanwhile with another score.
 * </ul>
 *
 * A job it adds that is already due is queued {@code queue.recoveryHoldBack} from now, not at its
 * due time: it may be missing because Redis lost its data, and a live worker may be running it on a
 * claim it has not written yet ({@code worker.claimWriteAfter}) whose lease went with the data. By
 * then that worker has written the claim or ended the attempt, and PostgreSQL refuses the job to
 * anyone else. (The job is already {@code reconcileAfter} late; this adds little.)
 *
 * <p>Both directions work shard by shard of a sharded queue (each script call on one shard's slot;
 * the scan of queue keys visits every master of a cluster). Both are idempotent, so several reapers
 * may run them at once. Jobs due more recently are left alone: they may be between a commit and its
 * enqueue, or being claimed, right now.
 */
public final class Reconciler {
  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
  private static final LuaScript RECONCILE =
      LuaScript.load(Reconciler.class, "reconcile.lua", ScriptOutputType.INTEGER);
  private static final LuaScript REMOVE_STALE =
      LuaScript.load(Reconciler.class, "removeStale.lua", ScriptOutputType.INTEGER);
  private static final int PAGE = 1_000;

  private final Clock clock;
  private final JobQueries queries;
  private final RedisConnection redis;
  private final RedisKeys keys;
  private final ReaperSettings settings;
  private final Duration holdBack;

  /**
   * @param holdBack how long after a pass the jobs it puts back that are due may be taken ({@code
   *     queue.recoveryHoldBack})
   */
  public Reconciler(
      Clock clock,
      JobQueries queries,
      RedisConnection redis,
      RedisKeys keys,
      ReaperSettings settings,
      Duration holdBack) {
    this.clock = clock;
    this.queries = queries;
    this.redis = redis;
    this.keys = keys;
    this.settings = settings;
    this.holdBack = holdBack;
  }

  /** What one pass repaired. */
  public record Repairs(int enqueued, int removed) {}

  public Repairs runOnce() {
    Instant now = clock.instant();
    Instant dueBefore = now.minus(settings.reconcileAfter);
    int enqueued = enqueueMissing(dueBefore, now.plus(holdBack));
    int removed = removeStale(dueBefore);
    if (enqueued > 0 || removed > 0) {
      log.warn(
          "reconciled Redis with PostgreSQL: {} pending jobs were missing from Redis and are"
              + " queued again, {} entries of jobs no longer pending removed",
          enqueued,
          removed);
    }
    return new Repairs(enqueued, removed);
  }

  /** PostgreSQL to Redis: every PENDING job due before {@code dueBefore} is in its queue. */
  private int enqueueMissing(Instant dueBefore, Instant notBefore) {
    RedisClusterCommands<String, String> commands = redis.sync();
    Instant afterRunAt = Instant.EPOCH;
    UUID afterId = new UUID(0, 0);
    int added = 0;
    int seen = 0;
    while (seen < settings.maxPerPass) {
      List<QueueEntry> page = queries.pendingDue(afterRunAt, afterId, dueBefore, PAGE);
      if (page.isEmpty()) {
        break;
      }
      seen += page.size();
      for (var group : ReadyQueue.byShard(keys, page).entrySet()) {
        ShardOf shard = group.getKey();
        String[] queues = keys.queues(shard.namespace(), shard.shard());
        // The limits' index of the jobs held in this shard is on the shard's slot.
        String heldIndex = new LimitKeys(keys).where(shard.namespace(), shard.shard());
        List<QueueEntry> entries = ReadyQueue.heldBack(group.getValue(), notBefore);
        if (entries.isEmpty()) {
          continue;
        }
        List<String> args = new ArrayList<>(1 + 3 * entries.size());
        args.add(keys.wakeChannel(shard.namespace()));
        for (QueueEntry e : entries) {
          args.add(Integer.toString(e.priority().rank() + 1));
          args.add(Long.toString(e.runAt().toEpochMilli()));
          args.add(e.id().toString());
        }
        String[] scriptKeys = java.util.Arrays.copyOf(queues, queues.length + 1);
        scriptKeys[queues.length] = heldIndex;
        Long n = RECONCILE.run(commands, scriptKeys, args.toArray(String[]::new));
        added += n.intValue();
      }
      // The page's own due times, not the held-back ones, carry the scan on.
      QueueEntry last = page.get(page.size() - 1);
      afterRunAt = last.runAt();
      afterId = last.id();
      if (page.size() < PAGE) {
        break;
      }
    }
    return added;
  }

  /** Redis to PostgreSQL: queue entries due before {@code dueBefore} belong to PENDING jobs. */
  private int removeStale(Instant dueBefore) {
    RedisClusterCommands<String, String> commands = redis.sync();
    Range<Double> due = Range.create(Double.NEGATIVE_INFINITY, (double) dueBefore.toEpochMilli());
    int removed = 0;
    int budget = settings.maxPerPass;
    ScanIterator<String> queues =
        ScanIterator.scan(commands, ScanArgs.Builder.matches(keys.queuePattern()).limit(100));
    while (queues.hasNext() && budget > 0) {
      String key = queues.next();
      Optional<QueueKey> queue = keys.parseQueue(key);
      if (queue.isEmpty()) {
        continue;
      }
      List<ScoredValue<String>> entries =
          commands.zrangebyscoreWithScores(key, due, Limit.create(0, Math.min(budget, PAGE)));
      budget -= entries.size();
      if (entries.isEmpty()) {
        continue;
      }
      Map<UUID, Long> scores = new HashMap<>();
      for (ScoredValue<String> e : entries) {
        scores.put(UUID.fromString(e.getValue()), (long) e.getScore());
      }
      Map<UUID, Job> jobs = new HashMap<>();
      for (Job job : queries.findMany(scores.keySet())) {
        jobs.put(job.id(), job);
      }
      Map<UUID, Long> stale = new HashMap<>();
      for (var e : scores.entrySet()) {
        Job job = jobs.get(e.getKey());
        if (job == null || job.status() != JobState.PENDING) {
          stale.put(e.getKey(), e.getValue());
        }
      }
      removed += removeIfUnchanged(key, stale);
    }
    return removed;
  }

  /** Removes members of a queue that still have the score read (see removeStale.lua). */
  int removeIfUnchanged(String queueKey, Map<UUID, Long> scores) {
    if (scores.isEmpty()) {
      return 0;
    }
    List<String> args = new ArrayList<>(2 * scores.size());
    for (var e : scores.entrySet()) {
      args.add(e.getKey().toString());
      args.add(Long.toString(e.getValue()));
    }
    Long n = REMOVE_STALE.run(redis.sync(), new String[] {queueKey}, args.toArray(String[]::new));
    return n.intValue();
  }
}
