package io.punctual.store.stats;

import io.punctual.store.sql.SqlFiles;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Reads {@code job_stats_minutes}, {@code job_stats_hours} and {@code job_stats_days} (kept by
 * {@link StatsRollup}): counts of attempts by outcome and their duration and start-lag percentiles,
 * grouped by type, namespace or hour, and a per-minute series. Rows are read by the primary key
 * (namespace, minute, hour or day) and merged here; the hours and days give the same groups as
 * their minutes.
 */
public final class StatsReader {
  private static final SqlFiles SQL = new SqlFiles(StatsReader.class);

  private final Jdbi jdbi;

  public StatsReader(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** How {@link #groups} groups. */
  public enum GroupBy {
    TYPE,
    NAMESPACE,
    HOUR
  }

  /** One group: its counts by outcome and the histograms of its attempts. */
  public static final class Group {
    private final String key;
    private final Map<String, Long> counts = new TreeMap<>();
    private final StatsHistogram duration = new StatsHistogram();
    private final StatsHistogram startLag = new StatsHistogram();

    Group(String key) {
      this.key = key;
      for (String outcome : OUTCOMES) {
        counts.put(outcome, 0L);
      }
    }

    public String key() {
      return key;
    }

    /** Attempts by outcome: SUCCEEDED, FAILED, TIMED_OUT, CANCELLED, LOST; and STARTED. */
    public Map<String, Long> counts() {
      return counts;
    }

    public StatsHistogram duration() {
      return duration;
    }

    public StatsHistogram startLag() {
      return startLag;
    }

    /** SUCCEEDED over all ended attempts; null when none ended. */
    public Double successRate() {
      long ended = 0;
      for (String outcome : ENDED) {
        ended += counts.get(outcome);
      }
      return ended == 0 ? null : (double) counts.get("SUCCEEDED") / ended;
    }

    private void add(String outcome, long n) {
      counts.merge(outcome, n, Long::sum);
    }

    Frozen freeze() {
      long[] c = new long[OUTCOMES.size()];
      for (int i = 0; i < c.length; i++) {
        c[i] = counts.get(OUTCOMES.get(i));
      }
      return new Frozen(c, duration.toStored(), startLag.toStored());
    }

    void merge(Frozen f) {
      for (int i = 0; i < f.counts.length; i++) {
        add(OUTCOMES.get(i), f.counts[i]);
      }
      duration.addAll(f.duration);
      startLag.addAll(f.startLag);
    }
  }

  /** The ended outcomes of an attempt (execution statuses), then the count of attempts started. */
  static final List<String> ENDED =
      List.of("SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "LOST");

  static final List<String> OUTCOMES =
      List.of("SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "LOST", "STARTED");

  /**
   * The groups of [from, to) for {@code namespaces} (null: every namespace), ordered by key; a
   * group with no attempt is not listed. Rows are per minute, so the range is taken to whole
   * minutes (a minute is in it when it starts in it). The part the rollup no longer rewrites is
   * read in units, whole UTC days where they fit (from {@code job_stats_days} once the rollup has
   * filled them; not for {@link GroupBy#HOUR}), whole hours where they fit and blocks of {@link
   * #BLOCK} at their sides: an hour from {@code job_stats_hours} once the rollup has filled it,
   * from its minutes before that, a block from its minutes; what is read of a unit is kept ({@link
   * #MAX_BLOCKS} units at most). So a first read of a month reads one row per day, namespace and
   * type for its whole days, hours at its two ends and the minutes of its two end hours, and a
   * console polling the last day reads the minutes at its two ends and the recent ones only.
   */
  public List<Group> groups(
      Collection<String> namespaces, Instant from, Instant to, GroupBy groupBy) {
    Instant start = ceil(from, MINUTE);
    Instant end = ceil(to, MINUTE);
    Map<String, Group> groups = new TreeMap<>();
    if (!start.isBefore(end)) {
      return List.of();
    }
    String scope =
        namespaces == null
            ? "*"
            : String.join("\u0000", new java.util.TreeSet<>(namespaces)) + "\u0000";
    jdbi.useHandle(
        h -> {
          Progress progress =
              h.createQuery(SQL.get("progress"))
                  .map(
                      (rs, ctx) ->
                          new Progress(
                              rs.getTimestamp("done_until").toInstant(),
                              instant(rs.getTimestamp("hours_until")),
                              instant(rs.getTimestamp("days_from")),
                              instant(rs.getTimestamp("days_until"))))
                  .findOne()
                  .orElse(null);
          Instant cacheStart = ceil(start, BLOCK);
          Instant cacheEnd = floor(end, BLOCK);
          if (progress == null) {
            cacheEnd = cacheStart;
          } else if (cacheEnd.isAfter(floor(progress.doneUntil.minus(FINAL_AFTER), BLOCK))) {
            cacheEnd = floor(progress.doneUntil.minus(FINAL_AFTER), BLOCK);
          }
          Sink all = (at, key) -> group(groups, key);
          if (!cacheStart.isBefore(cacheEnd)) {
            read(h, Source.MINUTES, namespaces, start, end, groupBy, all);
            return;
          }
          if (start.isBefore(cacheStart)) {
            read(h, Source.MINUTES, namespaces, start, cacheStart, groupBy, all);
          }
          if (cacheEnd.isBefore(end)) {
            read(h, Source.MINUTES, namespaces, cacheEnd, end, groupBy, all);
          }
          List<Unit> missing = new ArrayList<>();
          for (Instant t = cacheStart; t.isBefore(cacheEnd); ) {
            Unit unit = progress.unitAt(t, cacheEnd, groupBy);
            Map<String, Frozen> cached = cached(new UnitKey(scope, groupBy, t, unit.length));
            if (cached != null) {
              cached.forEach((k, f) -> group(groups, k).merge(f));
            } else {
              missing.add(unit);
            }
            t = t.plus(unit.length);
          }
          // The missing units, a statement per run of adjacent ones read from the same table.
          for (int i = 0; i < missing.size(); ) {
            int j = i + 1;
            while (j < missing.size()
                && missing.get(j).start.equals(missing.get(j - 1).end())
                && missing.get(j).source == missing.get(i).source) {
              j++;
            }
            TreeMap<Instant, Map<String, Group>> read = new TreeMap<>();
            for (Unit u : missing.subList(i, j)) {
              read.put(u.start, new TreeMap<>());
            }
            read(
                h,
                missing.get(i).source,
                namespaces,
                missing.get(i).start,
                missing.get(j - 1).end(),
                groupBy,
                (at, key) -> group(read.floorEntry(at).getValue(), key));
            for (Unit u : missing.subList(i, j)) {
              Map<String, Frozen> frozen = new TreeMap<>();
              read.get(u.start).forEach((k, g) -> frozen.put(k, g.freeze()));
              keep(new UnitKey(scope, groupBy, u.start, u.length), frozen);
              frozen.forEach((k, f) -> group(groups, k).merge(f));
            }
            i = j;
          }
        });
    return List.copyOf(groups.values());
  }

  /** Where the rollup has got (see progress.sql). */
  private record Progress(
      Instant doneUntil, Instant hoursUntil, Instant daysFrom, Instant daysUntil) {

    /**
     * The unit of the settled part that starts at {@code t} (before {@code end}): a whole UTC day
     * from job_stats_days once filled (not for groupBy=hour: a day row has no hours), else a whole
     * hour (from job_stats_hours once filled, else from its minutes), else a block of minutes.
     */
    Unit unitAt(Instant t, Instant end, GroupBy groupBy) {
      if (groupBy != GroupBy.HOUR
          && fits(t, DAY, end)
          && daysFrom != null
          && daysUntil != null
          && !t.isBefore(daysFrom)
          && !t.plus(DAY).isAfter(daysUntil)) {
        return new Unit(t, DAY, Source.DAYS);
      }
      if (fits(t, HOUR, end)) {
        boolean filled = hoursUntil != null && !t.plus(HOUR).isAfter(hoursUntil);
        return new Unit(t, HOUR, filled ? Source.HOURS : Source.MINUTES);
      }
      return new Unit(t, BLOCK, Source.MINUTES);
    }

    /** Whether a whole {@code unit} starts at {@code t} and ends by {@code end}. */
    private static boolean fits(Instant t, Duration unit, Instant end) {
      return floor(t, unit).equals(t) && !t.plus(unit).isAfter(end);
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  /** The table a unit is read from: {@code job_stats_<unit>s}. */
  private enum Source {
    MINUTES("minute"),
    HOURS("hour"),
    DAYS("day");

    final String unit;

    Source(String unit) {
      this.unit = unit;
    }
  }

  /** A unit of the settled part of a range: a day, an hour or a block, and where it is read. */
  private record Unit(Instant start, Duration length, Source source) {
    Instant end() {
      return start.plus(length);
    }
  }

  /** Where a row goes: the group of its key in the unit its time ({@code at}) falls in. */
  private interface Sink {
    Group group(Instant at, String key);
  }

  /**
   * Reads the rows of [from, to) from {@code source} (whole days or hours from job_stats_days or
   * job_stats_hours; else the minutes) into the groups {@code sink} gives for their time and key.
   */
  private static void read(
      Handle h,
      Source source,
      Collection<String> namespaces,
      Instant from,
      Instant to,
      GroupBy groupBy,
      Sink sink) {
    var query =
        namespaces == null
            ? h.createQuery(SQL.get("rowsAll").replace("{unit}", source.unit))
            : h.createQuery(SQL.get("rows").replace("{unit}", source.unit))
                .bind("namespaces", namespaces.toArray(String[]::new));
    query
        .bind("from", from)
        .bind("to", to)
        .map(
            (rs, ctx) -> {
              Instant at = rs.getTimestamp("at").toInstant();
              String key =
                  switch (groupBy) {
                    case TYPE -> rs.getString("type");
                    case NAMESPACE -> rs.getString("namespace");
                    case HOUR -> at.truncatedTo(ChronoUnit.HOURS).toString();
                  };
              Group g = sink.group(at, key);
              g.add("STARTED", rs.getLong("started"));
              g.add("SUCCEEDED", rs.getLong("succeeded"));
              g.add("FAILED", rs.getLong("failed"));
              g.add("TIMED_OUT", rs.getLong("timed_out"));
              g.add("CANCELLED", rs.getLong("cancelled"));
              g.add("LOST", rs.getLong("lost"));
              addText(g.duration, rs.getString("duration_ms"));
              addText(g.startLag, rs.getString("start_lag_ms"));
              return key;
            })
        .forEach(k -> {});
  }

  private static Group group(Map<String, Group> groups, String key) {
    return groups.computeIfAbsent(key, Group::new);
  }

  /** The length of a kept block of minutes (beside the whole hours). */
  static final Duration BLOCK = Duration.ofMinutes(10);

  private static final Duration HOUR = Duration.ofHours(1);

  private static final Duration DAY = Duration.ofDays(1);

  /**
   * A block is kept once it ended this long before where the rollup has got: the rollup rewrites
   * the minutes of its last {@code reaper.statsSettle} only, which is at most this.
   */
  public static final Duration FINAL_AFTER = Duration.ofMinutes(15);

  /** The most units kept (least recently used dropped first). */
  static final int MAX_BLOCKS = 4_500;

  private static final Duration MINUTE = Duration.ofMinutes(1);

  /** A kept unit of one scope (the namespaces asked for) and grouping. */
  private record UnitKey(String scope, GroupBy groupBy, Instant start, Duration length) {}

  /** A group of a kept unit: its counts (in {@link #OUTCOMES} order) and stored histograms. */
  static final class Frozen {
    private final long[] counts;
    private final int[] duration;
    private final int[] startLag;

    Frozen(long[] counts, int[] duration, int[] startLag) {
      this.counts = counts;
      this.duration = duration;
      this.startLag = startLag;
    }
  }

  private final Map<UnitKey, Map<String, Frozen>> blocks =
      new java.util.LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UnitKey, Map<String, Frozen>> eldest) {
          return size() > MAX_BLOCKS;
        }
      };

  private Map<String, Frozen> cached(UnitKey key) {
    synchronized (blocks) {
      return blocks.get(key);
    }
  }

  private void keep(UnitKey key, Map<String, Frozen> groups) {
    synchronized (blocks) {
      blocks.put(key, groups);
    }
  }

  /** The units kept now. */
  int keptBlocks() {
    synchronized (blocks) {
      return blocks.size();
    }
  }

  private static Instant floor(Instant t, Duration unit) {
    long ms = unit.toMillis();
    return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), ms) * ms);
  }

  private static Instant ceil(Instant t, Duration unit) {
    Instant f = floor(t, unit);
    return f.equals(t) ? f : f.plus(unit);
  }

  /** One minute of the series. */
  public record Point(Instant minute, long started, long succeeded, long failed) {}

  /** Per minute of [from, to) of {@code namespace}, minutes without attempts left out. */
  public List<Point> series(String namespace, Instant from, Instant to) {
    return jdbi.withHandle(
        h ->
            h.createQuery(SQL.get("series"))
                .bind("namespace", namespace)
                .bind("from", from)
                .bind("to", to)
                .map(
                    (rs, ctx) ->
                        new Point(
                            rs.getTimestamp("minute").toInstant(),
                            rs.getLong("started"),
                            rs.getLong("succeeded"),
                            rs.getLong("failed")))
                .list());
  }

  /**
   * Adds a stored histogram given as PostgreSQL's text of an integer array ({@code {0,3,1}}):
   * parsed here, without the driver's array objects (a day of every namespace is hundreds of
   * thousands of rows).
   */
  static void addText(StatsHistogram h, String text) {
    if (text == null) {
      return;
    }
    int bucket = 0;
    long n = 0;
    boolean digits = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        n = n * 10 + (c - '0');
        digits = true;
      } else if (c == ',' || c == '}') {
        if (digits && n != 0) {
          h.add(bucket, n);
        }
        bucket++;
        n = 0;
        digits = false;
      }
    }
  }
}
