package io.punctual.store;

import io.punctual.model.JobId;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the daily partitions of {@code jobs} and {@code job_executions} (UTC days) in existence.
 * Days already known to exist are remembered, so the insert path costs nothing after the first job
 * of a day; a day dropped since is found out by the insert that fails, and created again ({@link
 * #retryingDropped}). Partition DDL runs in its own short transaction, never inside a job insert.
 */
public final class PartitionManager {
  private static final Logger log = LoggerFactory.getLogger(PartitionManager.class);

  /** check_violation: what PostgreSQL answers for a row no partition accepts. */
  private static final String NO_PARTITION_FOR_ROW = "23514";

  private final Jdbi jdbi;
  private final Clock clock;
  private final int daysAhead;
  private final Set<LocalDate> known = ConcurrentHashMap.newKeySet();

  public PartitionManager(Jdbi jdbi, Clock clock, int daysAhead) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.daysAhead = daysAhead;
  }

  /**
   * Creates today's partition and the next {@code daysAhead} days'; returns tables created. Days
   * before yesterday are forgotten: new jobs never go there, and retention may drop them.
   */
  public int ensureAhead() {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    known.removeIf(d -> d.isBefore(today.minusDays(1)));
    return ensure(today.minusDays(1), today.plusDays(daysAhead));
  }

  /**
   * Runs {@code write}, which stores the jobs {@code ids} in partitions {@link #ensureCovers} made
   * sure of. Should one of their days have been dropped since (retention, run by a reaper), the
   * write fails for want of its partition: those days are forgotten, created again, and the write
   * runs once more.
   */
  public <T> T retryingDropped(Collection<UUID> ids, Supplier<T> write) {
    try {
      return write.get();
    } catch (RuntimeException e) {
      if (!NO_PARTITION_FOR_ROW.equals(DeadlockRetry.sqlState(e))) {
        throw e;
      }
      Set<LocalDate> days = new TreeSet<>();
      for (UUID id : ids) {
        days.add(LocalDate.ofInstant(JobId.scheduledAt(id), ZoneOffset.UTC));
      }
      log.warn("a partition of {} was missing (dropped meanwhile?), creating it again", days);
      known.removeAll(days);
      for (LocalDate day : days) {
        ensure(day, day);
      }
      return write.get();
    }
  }

  /** Whether the partition holding {@code scheduledAt} is known to exist (no query). */
  boolean knows(Instant scheduledAt) {
    return known.contains(LocalDate.ofInstant(scheduledAt, ZoneOffset.UTC));
  }

  /** Makes sure the partition holding {@code scheduledAt} exists. */
  public void ensureCovers(Instant scheduledAt) {
    LocalDate day = LocalDate.ofInstant(scheduledAt, ZoneOffset.UTC);
    if (!known.contains(day)) {
      ensure(day, day);
    }
  }

  private int ensure(LocalDate from, LocalDate to) {
    int created =
        jdbi.withHandle(
            h ->
                h.createQuery("SELECT punctual_ensure_partitions(:from, :to)")
                    .bind("from", from)
                    .bind("to", to)
                    .mapTo(Integer.class)
                    .one());
    for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
      known.add(d);
    }
    return created;
  }
}
