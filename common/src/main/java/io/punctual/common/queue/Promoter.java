package io.punctual.common.queue;

import io.lettuce.core.api.StatefulRedisConnection;
import io.punctual.common.config.QueueSettings;
import io.punctual.common.lease.SingleHolderLease;
import io.punctual.common.store.JobStore;
import io.punctual.common.store.JobStore.QueueEntry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves pending jobs from PostgreSQL into Redis as they come within the horizon. Its cursor (the
 * (run_at, id) up to which the queue is complete) lives in Redis: when Redis has lost its data the
 * cursor is gone too, and the next pass rebuilds the whole near-term queue from PostgreSQL, in
 * pages.
 *
 * <p>It stops {@code promoterSlack} short of the horizon: the API enqueues jobs inside the horizon
 * itself, and a job committed by a slow transaction just past the horizon's edge is still ahead of
 * the cursor when the promoter reaches it. Any number of promoters may run; a lease lets one work.
 */
public final class Promoter {
  private static final Logger log = LoggerFactory.getLogger(Promoter.class);
  private static final int PAGE = 1_000;

  private final JobStore store;
  private final ReadyQueue queue;
  private final StatefulRedisConnection<String, String> redis;
  private final QueueSettings settings;
  private final Clock clock;
  private final SingleHolderLease lease;

  public Promoter(
      JobStore store,
      ReadyQueue queue,
      StatefulRedisConnection<String, String> redis,
      QueueSettings settings,
      Clock clock,
      String holder) {
    this.store = store;
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
    Cursor cursor = readCursor();
    int promoted = 0;
    while (true) {
      List<QueueEntry> page = store.pendingDue(cursor.runAt, cursor.id, until, PAGE);
      if (page.isEmpty()) {
        break;
      }
      queue.enqueue(page);
      promoted += page.size();
      QueueEntry last = page.get(page.size() - 1);
      cursor = new Cursor(last.runAt(), last.id());
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
      cursor = new Cursor(until, new UUID(-1L, -1L));
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

  private record Cursor(Instant runAt, UUID id) {}

  private Cursor readCursor() {
    String raw = redis.sync().get(queue.keys().promoterCursor());
    if (raw == null) {
      return new Cursor(Instant.EPOCH, new UUID(0, 0));
    }
    int colon = raw.indexOf(':');
    return new Cursor(
        Instant.ofEpochMilli(Long.parseLong(raw.substring(0, colon))),
        UUID.fromString(raw.substring(colon + 1)));
  }

  private void writeCursor(Cursor cursor) {
    redis.sync().set(queue.keys().promoterCursor(), cursor.runAt.toEpochMilli() + ":" + cursor.id);
  }
}
