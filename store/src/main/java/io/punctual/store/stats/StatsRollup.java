package io.punctual.store.stats;

import io.punctual.store.sql.SqlFiles;
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
 * attempts of minutes that fell out of {@code retention} (taken to the whole hour before).
 *
 * <p>Each pass then fills {@code job_stats_hours} (V21): the hours whose minutes are no longer
 * rewritten (ended {@link StatsReader#FINAL_AFTER} before where the rollup has got, which is at
 * least {@code settle}), summed from those minutes, from {@code job_stats_rollup.hours_until} on,
 * at most {@link #HOURS_PER_PASS} of them per pass: a store migrated with its minutes already there
 * (or a reaper that was down) gets its hours filled back a day per pass, the oldest within {@code
 * retention} first. Then {@code job_stats_days} (V22): each whole UTC day whose hours are all
 * filled, summed from those hours, from {@code job_stats_rollup.days_until} on, at most {@link
 * #DAYS_PER_PASS} per pass.
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

  /** The most hours one pass fills ({@link #fillHours()}). */
  static final Duration HOURS_PER_PASS = Duration.ofDays(1);

  /**
   * What one pass did: the minutes [from, to) it computed and how many rows it wrote, and the hours
   * it filled.
   */
  public record Pass(Instant from, Instant to, int rows, Hours hours) {}

  /** The most days one pass fills from the hours. */
  static final Duration DAYS_PER_PASS = Duration.ofDays(7);

  /**
   * The hours [from, to) a pass filled (empty when from equals to) and the rows it wrote, and the
   * whole days it filled from the hours: {@code daysFilled} days, {@code dayRows} rows written.
   */
  public record Hours(Instant from, Instant to, int rows, int dayRows, int daysFilled) {
    static final Hours NONE = new Hours(Instant.EPOCH, Instant.EPOCH, 0, 0, 0);

    Hours(Instant from, Instant to, int rows) {
      this(from, to, rows, 0, 0);
    }

    /** Whether the pass filled any hour or day (a caller catching up calls again while so). */
    public boolean filled() {
      return from.isBefore(to) || daysFilled > 0;
    }

    Hours withDays(int dayRows, int daysFilled) {
      return new Hours(from, to, rows, dayRows, daysFilled);
    }
  }

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
          return new Pass(start, end, rows.size(), expireAndFillHours(h, now));
        });
  }

  /**
   * Expires and fills the next settled hours of {@code job_stats_hours} (at most {@link
   * #HOURS_PER_PASS}) and then the next whole days of {@code job_stats_days} from the hours (at
   * most {@link #DAYS_PER_PASS}), as each pass does after its minutes, in a transaction of its own:
   * for a store whose minutes were written otherwise (the scale benchmark's loader). Empty once the
   * hours and days are caught up.
   */
  public Hours fillHours() {
    return jdbi.inTransaction(h -> expireAndFillHours(h, clock.instant()));
  }

  /**
   * Drops the minutes, hours and days past retention (before the same whole hour; a day that starts
   * before it), then fills the next settled hours from that hour on, then the whole days those
   * hours complete: so no minute is ever left before the first filled hour, which the reader would
   * take from the hours (and find missing).
   */
  private Hours expireAndFillHours(Handle h, Instant now) {
    Instant notBefore = hour(now.minus(retention));
    h.createUpdate(SQL.get("expire")).bind("before", notBefore).execute();
    h.createUpdate(SQL.get("expireHours")).bind("before", notBefore).execute();
    h.createUpdate(SQL.get("expireDays")).bind("before", notBefore).execute();
    h.createUpdate(SQL.get("daysFrom")).bind("daysFrom", firstWholeDay(notBefore)).execute();
    return fillDays(h, notBefore, fillHours(h, notBefore));
  }

  /**
   * Fills the next whole UTC days of {@code job_stats_days} from the hours (at most {@link
   * #DAYS_PER_PASS}): a day once all of its hours are filled and none has been expired (it starts
   * at or after {@code notBefore}).
   */
  private Hours fillDays(Handle h, Instant notBefore, Hours hours) {
    Instant hoursUntil =
        h.createQuery(SQL.get("hoursUntil")).mapTo(Instant.class).findOne().orElse(null);
    if (hoursUntil == null) {
      return hours;
    }
    Instant daysUntil =
        h.createQuery(SQL.get("daysUntil")).mapTo(Instant.class).findOne().orElse(null);
    Instant first = firstWholeDay(notBefore);
    Instant from = daysUntil == null || daysUntil.isBefore(first) ? first : daysUntil;
    Instant filled = day(hoursUntil);
    Instant to = from.plus(DAYS_PER_PASS).isBefore(filled) ? from.plus(DAYS_PER_PASS) : filled;
    if (!from.isBefore(to)) {
      return hours;
    }
    int rows = h.createUpdate(sumUp("day", "hour")).bind("from", from).bind("to", to).execute();
    h.createUpdate(SQL.get("advanceDays")).bind("daysUntil", to).execute();
    return hours.withDays(rows, (int) Duration.between(from, to).toDays());
  }

  private static final Duration DAY = Duration.ofDays(1);

  /**
   * sumUp.sql summing the rows of {@code job_stats_<source>s} into {@code job_stats_<unit>s} (one
   * statement for both levels, so that they cannot drift apart).
   */
  private static String sumUp(String unit, String source) {
    return SQL.get("sumUp").replace("{unit}", unit).replace("{source}", source);
  }

  /** The first UTC day that starts at or after {@code t}. */
  private static Instant firstWholeDay(Instant t) {
    return day(t).equals(t) ? t : day(t).plus(DAY);
  }

  /** The UTC day {@code t} falls in. */
  private static Instant day(Instant t) {
    return t.truncatedTo(ChronoUnit.DAYS);
  }

  private Hours fillHours(Handle h, Instant notBefore) {
    Instant doneUntil =
        h.createQuery(SQL.get("doneUntil")).mapTo(Instant.class).findOne().orElse(null);
    if (doneUntil == null) {
      return Hours.NONE;
    }
    Instant hoursUntil =
        h.createQuery(SQL.get("hoursUntil")).mapTo(Instant.class).findOne().orElse(null);
    Instant from = hoursUntil == null || hoursUntil.isBefore(notBefore) ? notBefore : hoursUntil;
    Instant settled = hour(doneUntil.minus(StatsReader.FINAL_AFTER));
    Instant to = from.plus(HOURS_PER_PASS).isBefore(settled) ? from.plus(HOURS_PER_PASS) : settled;
    if (!from.isBefore(to)) {
      return new Hours(from, from, 0);
    }
    int rows = h.createUpdate(sumUp("hour", "minute")).bind("from", from).bind("to", to).execute();
    h.createUpdate(SQL.get("advanceHours")).bind("hoursUntil", to).execute();
    return new Hours(from, to, rows);
  }

  private static Instant hour(Instant t) {
    return t.truncatedTo(ChronoUnit.HOURS);
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
          // RUNNING rows are never recorded by a finish; a HANDED_BACK attempt is no outcome
          // (its job runs again at once), so the statistics leave it out
        }
      }
    }
  }
}
