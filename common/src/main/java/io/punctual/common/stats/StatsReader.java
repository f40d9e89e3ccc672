package io.punctual.common.stats;

import io.punctual.common.sql.SqlFiles;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Reads {@code job_stats_minutes} (kept by {@link StatsRollup}): counts of attempts by outcome and
 * their duration and start-lag percentiles, grouped by type, namespace or hour, and a per-minute
 * series. Rows are read by the primary key (namespace, minute) and merged here.
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
   * minutes (a minute is in it when it starts in it). What is read of the blocks of {@link #BLOCK}
   * that the rollup no longer rewrites is kept ({@link #MAX_BLOCKS} at most): a console polling the
   * last day reads the minutes at its two ends and the recent ones only.
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
          Instant doneUntil =
              h.createQuery(SQL.get("doneUntil")).mapTo(Instant.class).findOne().orElse(null);
          Instant cacheStart = ceil(start, BLOCK);
          Instant cacheEnd = floor(end, BLOCK);
          if (doneUntil == null) {
            cacheEnd = cacheStart;
          } else if (cacheEnd.isAfter(floor(doneUntil.minus(FINAL_AFTER), BLOCK))) {
            cacheEnd = floor(doneUntil.minus(FINAL_AFTER), BLOCK);
          }
          if (!cacheStart.isBefore(cacheEnd)) {
            read(h, namespaces, start, end, groupBy, (block, key) -> group(groups, key));
            return;
          }
          if (start.isBefore(cacheStart)) {
            read(h, namespaces, start, cacheStart, groupBy, (block, key) -> group(groups, key));
          }
          if (cacheEnd.isBefore(end)) {
            read(h, namespaces, cacheEnd, end, groupBy, (block, key) -> group(groups, key));
          }
          Instant run = null;
          for (Instant b = cacheStart; ; b = b.plus(BLOCK)) {
            Map<String, Frozen> cached = b.isBefore(cacheEnd) ? cached(scope, groupBy, b) : null;
            if (cached != null || !b.isBefore(cacheEnd)) {
              if (run != null) { // read the blocks missing from run to b, keep each
                Map<Instant, Map<String, Group>> read = new TreeMap<>();
                for (Instant m = run; m.isBefore(b); m = m.plus(BLOCK)) {
                  read.put(m, new TreeMap<>());
                }
                read(h, namespaces, run, b, groupBy, (block, key) -> group(read.get(block), key));
                read.forEach(
                    (block, blockGroups) -> {
                      Map<String, Frozen> frozen = new TreeMap<>();
                      blockGroups.forEach((k, g) -> frozen.put(k, g.freeze()));
                      keep(scope, groupBy, block, frozen);
                      frozen.forEach((k, f) -> group(groups, k).merge(f));
                    });
                run = null;
              }
              if (cached != null) {
                cached.forEach((k, f) -> group(groups, k).merge(f));
              }
              if (!b.isBefore(cacheEnd)) {
                break;
              }
            } else if (run == null) {
              run = b;
            }
          }
        });
    return List.copyOf(groups.values());
  }

  /** Where a row of a block goes. */
  private interface Sink {
    Group group(Instant block, String key);
  }

  /** Reads the rows of [from, to) into the groups {@code sink} gives for their block and key. */
  private static void read(
      Handle h,
      Collection<String> namespaces,
      Instant from,
      Instant to,
      GroupBy groupBy,
      Sink sink) {
    var query =
        namespaces == null
            ? h.createQuery(SQL.get("minutesAll"))
            : h.createQuery(SQL.get("minutes"))
                .bind("namespaces", namespaces.toArray(String[]::new));
    query
        .bind("from", from)
        .bind("to", to)
        .map(
            (rs, ctx) -> {
              Instant minute = rs.getTimestamp("minute").toInstant();
              String key =
                  switch (groupBy) {
                    case TYPE -> rs.getString("type");
                    case NAMESPACE -> rs.getString("namespace");
                    case HOUR -> minute.truncatedTo(ChronoUnit.HOURS).toString();
                  };
              Group g = sink.group(floor(minute, BLOCK), key);
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

  /** The length of a kept block of minutes. */
  static final Duration BLOCK = Duration.ofMinutes(10);

  /**
   * A block is kept once it ended this long before where the rollup has got: the rollup rewrites
   * the minutes of its last {@code reaper.statsSettle} only, which is at most this.
   */
  public static final Duration FINAL_AFTER = Duration.ofMinutes(15);

  /** The most blocks kept (least recently used dropped first): a month of 10-minute blocks. */
  static final int MAX_BLOCKS = 4_500;

  private static final Duration MINUTE = Duration.ofMinutes(1);

  /** A kept block of one scope (the namespaces asked for) and grouping. */
  private record BlockKey(String scope, GroupBy groupBy, Instant block) {}

  /** A group of a kept block: its counts (in {@link #OUTCOMES} order) and stored histograms. */
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

  private final Map<BlockKey, Map<String, Frozen>> blocks =
      new java.util.LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BlockKey, Map<String, Frozen>> eldest) {
          return size() > MAX_BLOCKS;
        }
      };

  private Map<String, Frozen> cached(String scope, GroupBy groupBy, Instant block) {
    synchronized (blocks) {
      return blocks.get(new BlockKey(scope, groupBy, block));
    }
  }

  private void keep(String scope, GroupBy groupBy, Instant block, Map<String, Frozen> groups) {
    synchronized (blocks) {
      blocks.put(new BlockKey(scope, groupBy, block), groups);
    }
  }

  /** The blocks kept now. */
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
