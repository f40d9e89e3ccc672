package io.punctual.common.store;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.Jdbi;

/**
 * Keeps the daily partitions of {@code jobs} and {@code job_executions} (UTC days) in existence.
 * Days already known to exist are remembered, so the insert path costs nothing after the first job
 * of a day. Partition DDL runs in its own short transaction, never inside a job insert.
 */
public final class PartitionManager {
  private final Jdbi jdbi;
  private final Clock clock;
  private final int daysAhead;
  private final Set<LocalDate> known = ConcurrentHashMap.newKeySet();

  public PartitionManager(Jdbi jdbi, Clock clock, int daysAhead) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.daysAhead = daysAhead;
  }

  /** Creates today's partition and the next {@code daysAhead} days'; returns tables created. */
  public int ensureAhead() {
    LocalDate today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC);
    return ensure(today.minusDays(1), today.plusDays(daysAhead));
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
