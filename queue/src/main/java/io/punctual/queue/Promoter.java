package io.punctual.queue;

import io.punctual.model.QueueEntry;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.lease.SingleHolderLease;
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
 * <p>It stops {@code promoterSlack} short of the horizon: the API enqueues jobs inside the horizon
 * itself, and a job committed by a slow transaction just past the horizon's edge is still ahead of
 * the cursor when the promoter reaches it. Any number of promoters may run; a lease lets one work.
 */
public final class Promoter {
  private static final Logger log = LoggerFactory.getLogger(Promoter.class);
  private static final int PAGE = 1_000;

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
    Cursor cursor = readCursor();
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
      cursor = new Cursor(runId, Instant.EPOCH, new UUID(0, 0));
    }
    int promoted = 0;
    while (true) {
      List<QueueEntry> page = pending.due(cursor.runAt, cursor.id, until, PAGE);
      if (page.isEmpty()) {
        break;
      }
      queue.enqueue(page);
      promoted += page.size();
      QueueEntry last = page.get(page.size() - 1);
      cursor = new Cursor(runId, last.runAt(), last.id());
      writeCursor(cursor);
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
      writeCursor(cursor);
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

  /**
   * The Redis server's run_id (a new one on every start of the server); on a cluster, those of all
   * masters, so that a failover of any of them (a promoted replica may have lagged) rebuilds.
   */
  private String serverRunId() {
    return redis.serverIdentity();
  }

  /** {@code <run_id>/<run_at ms>/<id>}, or null when absent (or written by an older version). */
  private Cursor readCursor() {
    String raw = redis.sync().get(queue.keys().promoterCursor());
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

  private void writeCursor(Cursor cursor) {
    redis
        .sync()
        .set(
            queue.keys().promoterCursor(),
            cursor.runId + "/" + cursor.runAt.toEpochMilli() + "/" + cursor.id);
  }
}
