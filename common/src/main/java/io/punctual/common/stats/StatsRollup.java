package io.punctual.common.stats;

import io.punctual.common.sql.SqlFiles;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * Keeps {@code job_stats_minutes} (V16): each {@link #runOnce()} computes again, from the recorded
 * attempts ({@code job_executions}) and the running ones, every minute from {@code settle} before
 * where the previous pass stopped up to now (at most {@code maxCatchUp} further per pass), and
 * replaces those minutes' rows. Run by the reaper, off the workers' path: a worker's results write
 * nothing more than before (the BRIN index this reads by is summarized by vacuum, not per insert).
 * An attempt whose record lands more than {@code settle} after its end is not counted; so are the
 * attempts of minutes that fell out of {@code retention}.
 */
public final class StatsRollup {
  private static final SqlFiles SQL = new SqlFiles(StatsRollup.class);

  private final Jdbi jdbi;
  private final Clock clock;
  private final Duration settle;
  private final Duration maxCatchUp;
  private final Duration retention;

  public StatsRollup(
      Jdbi jdbi, Clock clock, Duration settle, Duration maxCatchUp, Duration retention) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.settle = settle;
    this.maxCatchUp = maxCatchUp;
    this.retention = retention;
  }

  /** What one pass did: the minutes [from, to) it computed and how many rows it wrote. */
  public record Pass(Instant from, Instant to, int rows) {}

  /** One pass (see the class). */
  public Pass runOnce() {
    Instant now = clock.instant();
    return jdbi.inTransaction(
        h -> {
          Instant doneUntil =
              h.createQuery(SQL.get("doneUntil")).mapTo(Instant.class).findOne().orElse(null);
          Instant start =
              (doneUntil == null || doneUntil.isAfter(now) ? now : doneUntil)
                  .minus(settle)
                  .truncatedTo(ChronoUnit.MINUTES);
          Instant end = start.plus(settle).plus(maxCatchUp);
          if (end.isAfter(now)) {
            end = now;
          }
          Map<Key, Row> rows = compute(h, start, end);
          h.createUpdate(SQL.get("clear")).bind("start", start).bind("end", end).execute();
          if (!rows.isEmpty()) {
            PreparedBatch batch = h.prepareBatch(SQL.get("upsert"));
            for (Row r : rows.values()) {
              batch
                  .bind("minute", r.key.minute)
                  .bind("namespace", r.key.namespace)
                  .bind("type", r.key.type)
                  .bind("started", r.started)
                  .bind("succeeded", r.succeeded)
                  .bind("failed", r.failed)
                  .bind("timedOut", r.timedOut)
                  .bind("cancelled", r.cancelled)
                  .bind("lost", r.lost)
                  .bind("durationMs", boxed(r.duration.toStored()))
                  .bind("startLagMs", boxed(r.lag.toStored()))
                  .add();
            }
            batch.execute();
          }
          h.createUpdate(SQL.get("advance")).bind("doneUntil", end).execute();
          h.createUpdate(SQL.get("expire")).bind("before", now.minus(retention)).execute();
          return new Pass(start, end, rows.size());
        });
  }

  private static Map<Key, Row> compute(Handle h, Instant start, Instant end) {
    Map<Key, Row> rows = new LinkedHashMap<>();
    h.createQuery(SQL.get("rollup"))
        .bind("start", start)
        .bind("end", end)
        .map(
            (rs, ctx) -> {
              Timestamp minute = rs.getTimestamp("minute");
              Key key =
                  new Key(minute.toInstant(), rs.getString("namespace"), rs.getString("type"));
              Row row = rows.computeIfAbsent(key, Row::new);
              long n = rs.getLong("n");
              String k = rs.getString("key");
              switch (rs.getString("kind")) {
                case "outcome" -> row.outcome(k, n);
                case "duration" -> row.duration.add(Integer.parseInt(k), n);
                case "lag" -> row.lag.add(Integer.parseInt(k), n);
                case "started" -> row.started += (int) n;
                default -> throw new IllegalStateException("unknown kind in rollup.sql");
              }
              return key;
            })
        .list();
    return rows;
  }

  private static Integer[] boxed(int[] values) {
    Integer[] out = new Integer[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }

  private record Key(Instant minute, String namespace, String type) {}

  private static final class Row {
    final Key key;
    final StatsHistogram duration = new StatsHistogram();
    final StatsHistogram lag = new StatsHistogram();
    int started;
    int succeeded;
    int failed;
    int timedOut;
    int cancelled;
    int lost;

    Row(Key key) {
      this.key = key;
    }

    void outcome(String status, long n) {
      int c = (int) n;
      switch (status) {
        case "SUCCEEDED" -> succeeded += c;
        case "FAILED" -> failed += c;
        case "TIMED_OUT" -> timedOut += c;
        case "CANCELLED" -> cancelled += c;
        case "LOST" -> lost += c;
        default -> {
          // RUNNING rows are never recorded by a finish; nothing else exists
        }
      }
    }
  }
}
