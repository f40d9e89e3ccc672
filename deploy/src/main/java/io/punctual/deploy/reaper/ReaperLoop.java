package io.punctual.deploy.reaper;

import io.punctual.common.Stores;
import io.punctual.common.queue.Promoter;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code punctual reaper} does today: runs the promoter (which moves pending jobs entering the
 * horizon into Redis, and rebuilds the whole near-term queue from PostgreSQL when Redis lost its
 * data), and keeps the daily partitions created ahead. Reviving jobs whose worker died is not
 * implemented yet.
 */
public final class ReaperLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReaperLoop.class);

  /** How often the partitions ahead are checked (creating them is idempotent and cheap). */
  public static final Duration PARTITION_INTERVAL = Duration.ofHours(1);

  /** What one pass did. */
  public record Pass(int promoted, int partitionsCreated) {}

  private final Stores stores;
  private final Promoter promoter;
  private final String holder;
  private ScheduledExecutorService executor;

  public ReaperLoop(Stores stores, String holder) {
    this.stores = stores;
    this.holder = holder;
    this.promoter =
        new Promoter(
            stores.jobs, stores.queue, stores.redis, stores.queueSettings, stores.clock, holder);
  }

  /** One promoter pass and one partition check. */
  public Pass runOnce() {
    int partitions = stores.partitions.ensureAhead();
    int promoted = promoter.runOnce();
    return new Pass(promoted, partitions);
  }

  /** Runs the promoter every {@code queue.promoterInterval} and the partition check hourly. */
  public synchronized void start() {
    if (executor != null) {
      throw new IllegalStateException("already started");
    }
    executor =
        Executors.newScheduledThreadPool(
            1, Thread.ofPlatform().daemon().name("punctual-reaper").factory());
    long promote = stores.queueSettings.promoterInterval.toNanos();
    executor.scheduleWithFixedDelay(this::promote, 0, promote, TimeUnit.NANOSECONDS);
    long partitions = PARTITION_INTERVAL.toNanos();
    executor.scheduleWithFixedDelay(this::partitions, 0, partitions, TimeUnit.NANOSECONDS);
    log.info(
        "reaper started holder={} promoterInterval={} partitionInterval={}",
        holder,
        stores.queueSettings.promoterInterval,
        PARTITION_INTERVAL);
  }

  private void promote() {
    try {
      promoter.runOnce();
    } catch (RuntimeException e) {
      log.warn("promoter pass failed holder={}: {}", holder, e.toString());
    }
  }

  private void partitions() {
    try {
      int created = stores.partitions.ensureAhead();
      if (created > 0) {
        log.info("created {} partition tables", created);
      }
    } catch (RuntimeException e) {
      log.warn("partition maintenance failed: {}", e.toString());
    }
  }

  /** Stops the loop and releases the promoter lease so another reaper or worker takes over. */
  @Override
  public synchronized void close() {
    if (executor == null) {
      return;
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    executor = null;
    try {
      promoter.release();
    } catch (RuntimeException e) {
      log.debug("promoter lease release failed", e);
    }
    log.info("reaper stopped holder={}", holder);
  }
}
