package io.punctual.queue;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.punctual.model.QueueEntry;
import io.punctual.queue.ReadyQueue.Queued;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.lease.SingleHolderLease;
import io.punctual.queue.redis.LuaScript;
import io.punctual.queue.redis.RedisConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves pending jobs from PostgreSQL into Redis as they come within the horizon. Its cursor (the
 * (run_at, id) up to which the queue is complete) lives in Redis, stamped with the Redis server's
 * {@code run_id}: when Redis has lost its data (FLUSHALL, a restart without persistence) the cursor
 * is gone, and when the server is a different one (a restart, which may have reloaded an older
 * snapshot, or a failover to a replica that lagged) the stamp differs. Either way the next pass
 * rebuilds the whole near-term queue from PostgreSQL, in pages, at once, without waiting for jobs
 * to become overdue.
 *
 * <p>A rebuild holds back the jobs it puts back that are already due, until {@code
 * queue.recoveryHoldBack} from its start: a live worker may be running one of them on a claim it
 * has not written yet ({@code worker.claimWriteAfter}), and its lease went with the data; by then
 * it has written the claim or ended the attempt, and PostgreSQL refuses the job to anyone else.
 * After a flush a job already queued keeps its score (it was queued after the loss); after a
 * restart or failover it is held back too (it may come from an older snapshot).
 *
 * <p>It stops {@code promoterSlack} short of the horizon: the API enqueues jobs inside the horizon
 * itself, and a job committed by a slow transaction just past the horizon's edge is still ahead of
 * the cursor when the promoter reaches it. Any number of promoters may run; a lease lets one work.
 */
public final class Promoter {
  private static final Logger log = LoggerFactory.getLogger(Promoter.class);
  private static final int PAGE = 1_000;
  private static final LuaScript MOVE_CURSOR =
      LuaScript.load(Promoter.class, "moveCursor.lua", ScriptOutputType.INTEGER);

  private final PendingJobs pending;
  private final ReadyQueue queue;
  private final RedisConnection redis;
  private final QueueSettings settings;
  private final Clock clock;
  private final SingleHolderLease lease;
  private final AtomicLong rebuilds = new AtomicLong();

  public Promoter(
      PendingJobs pending,
      ReadyQueue queue,
      RedisConnection redis,
      QueueSettings settings,
      Clock clock,
      String holder) {
    this.pending = pending;
    this.queue = queue;
    this.redis = redis;
    this.settings = settings;
    this.clock = clock;
    Duration leaseTtl = settings.promoterInterval.multipliedBy(5).plusSeconds(5);
    this.lease = new SingleHolderLease(redis, queue.keys().promoterLease(), holder, leaseTtl);
  }

  /** One pass; returns how many jobs it enqueued (0 when another promoter holds the lease). */
  public int runOnce() {
    if (!lease.acquireOrRenew()) {
      return 0;
    }
    Instant until = clock.instant().plus(settings.horizon).minus(settings.promoterSlack);
    String runId = serverRunId();
    String seen = redis.sync().get(queue.keys().promoterCursor());
    Cursor cursor = parse(seen);
    if (cursor == null || !cursor.runId.equals(runId)) {
      rebuilds.incrementAndGet();
      if (cursor == null) {
        log.info(
            "no promoter cursor in Redis (first start, or Redis lost its data): rebuilding the"
                + " near-term queue from PostgreSQL");
      } else {
        log.warn(
            "Redis is not the server of the last pass (restart or failover): rebuilding the"
                + " near-term queue from PostgreSQL");
      }
      startHoldBack(cursor == null ? Queued.KEEP : Queued.HOLD_BACK);
      cursor = new Cursor(runId, Instant.EPOCH, new UUID(0, 0));
    }
    HoldBack holdBack = readHoldBack();
    int promoted = 0;
    while (true) {
      List<QueueEntry> page = pending.due(cursor.runAt, cursor.id, until, PAGE);
      if (page.isEmpty()) {
        break;
      }
      if (holdBack == null) {
        queue.enqueue(page);
      } else {
        queue.restore(page, holdBack.until, holdBack.queued);
      }
      promoted += page.size();
      QueueEntry last = page.get(page.size() - 1);
      cursor = new Cursor(runId, last.runAt(), last.id());
      seen = moveCursor(seen, cursor);
      if (seen == null) {
        return promoted;
      }
      if (page.size() < PAGE) {
        break;
      }
    }
    // Everything due up to `until` that is committed is in Redis now. What commits later is
    // enqueued by whoever writes it (the API and the worker enqueue jobs due within the horizon
    // themselves; the slack covers a transaction that took that long), so the cursor moves to
    // `until`: the next pass reads only jobs entering the window, not every job the API already
    // enqueued.
    if (cursor.runAt.isBefore(until)) {
      cursor = new Cursor(runId, until, new UUID(-1L, -1L));
      if (moveCursor(seen, cursor) == null) {
        return promoted;
      }
    }
    if (promoted > 0) {
      log.debug("promoted {} jobs into Redis (up to {})", promoted, until);
    }
    return promoted;
  }

  public void release() {
    lease.release();
  }

  /** How many times this promoter found the queue lost and rebuilt it from PostgreSQL. */
  public long rebuilds() {
    return rebuilds.get();
  }

  private record Cursor(String runId, Instant runAt, UUID id) {}

  /** A rebuild's hold-back: due jobs it puts back wait until {@code until}. */
  private record HoldBack(Instant until, Queued queued) {}

  /**
   * Notes the hold-back of a rebuild starting now, in Redis with a TTL of the hold-back itself: a
   * rebuild cut short (by an error, or by a failover of the promoter's lease) goes on the same way
   * while it lasts, and after that it no longer matters.
   */
  private void startHoldBack(Queued queued) {
    Duration holdBack = settings.recoveryHoldBack;
    if (!holdBack.isPositive()) {
      return;
    }
    Instant until = clock.instant().plus(holdBack);
    redis
        .sync()
        .set(
            queue.keys().promoterHoldBack(),
            until.toEpochMilli() + "/" + queued.name(),
            SetArgs.Builder.px(holdBack.toMillis()));
  }

  /** The hold-back of a rebuild in progress, or null. */
  private HoldBack readHoldBack() {
    String raw = redis.sync().get(queue.keys().promoterHoldBack());
    if (raw == null) {
      return null;
    }
    String[] parts = raw.split("/", 2);
    try {
      return new HoldBack(Instant.ofEpochMilli(Long.parseLong(parts[0])), Queued.valueOf(parts[1]));
    } catch (RuntimeException e) {
      log.warn("ignoring an unreadable promoter hold-back in Redis: {}", raw);
      return null;
    }
  }

  /**
   * The Redis server's run_id (a new one on every start of the server); on a cluster, those of all
   * masters, so that a failover of any of them (a promoted replica may have lagged) rebuilds.
   */
  private String serverRunId() {
    return redis.serverIdentity();
  }

  /** {@code <run_id>/<run_at ms>/<id>}, or null when absent (or written by an older version). */
  private static Cursor parse(String raw) {
    if (raw == null) {
      return null;
    }
    String[] parts = raw.split("/", 3);
    if (parts.length != 3) {
      return null;
    }
    return new Cursor(
        parts[0], Instant.ofEpochMilli(Long.parseLong(parts[1])), UUID.fromString(parts[2]));
  }

  /**
   * Moves the cursor from {@code seen} (what this pass read or last wrote; null: none) to {@code
   * cursor}, only if it is still {@code seen} (moveCursor.lua); returns what it wrote, or null when
   * the cursor changed under this pass. A pass that began before Redis lost its data would
   * otherwise write its cursor back after the loss, and the next pass would take the queue for
   * complete and rebuild nothing (seen in FaultInjectionE2E on a loaded machine). The next pass
   * reads the cursor again and rebuilds if it is gone.
   */
  private String moveCursor(String seen, Cursor cursor) {
    String value = cursor.runId + "/" + cursor.runAt.toEpochMilli() + "/" + cursor.id;
    Long moved =
        MOVE_CURSOR.run(
            redis.sync(),
            new String[] {queue.keys().promoterCursor()},
            seen == null ? "" : seen,
            value);
    if (moved == null || moved == 0) {
      log.debug("the promoter's cursor changed under this pass; the next pass reads it again");
      return null;
    }
    return value;
  }
}
