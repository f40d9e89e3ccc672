package io.punctual.common.stats;

import io.punctual.common.sql.SqlFiles;
import java.sql.Array;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
  }

  /** The ended outcomes of an attempt (execution statuses), then the count of attempts started. */
  static final List<String> ENDED =
      List.of("SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "LOST");

  static final List<String> OUTCOMES =
      List.of("SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELLED", "LOST", "STARTED");

  /**
   * The groups of [from, to) for {@code namespaces} (null: every namespace), ordered by key; a
   * group with no attempt is not listed.
   */
  public List<Group> groups(
      Collection<String> namespaces, Instant from, Instant to, GroupBy groupBy) {
    Map<String, Group> groups = new TreeMap<>();
    jdbi.useHandle(
        h ->
            h.createQuery(SQL.get("minutes"))
                .bind("all", namespaces == null)
                .bind(
                    "namespaces",
                    namespaces == null ? new String[0] : namespaces.toArray(String[]::new))
                .bind("from", from)
                .bind("to", to)
                .map(
                    (rs, ctx) -> {
                      String key =
                          switch (groupBy) {
                            case TYPE -> rs.getString("type");
                            case NAMESPACE -> rs.getString("namespace");
                            case HOUR ->
                                rs.getTimestamp("minute")
                                    .toInstant()
                                    .truncatedTo(ChronoUnit.HOURS)
                                    .toString();
                          };
                      Group g = groups.computeIfAbsent(key, Group::new);
                      g.add("STARTED", rs.getLong("started"));
                      g.add("SUCCEEDED", rs.getLong("succeeded"));
                      g.add("FAILED", rs.getLong("failed"));
                      g.add("TIMED_OUT", rs.getLong("timed_out"));
                      g.add("CANCELLED", rs.getLong("cancelled"));
                      g.add("LOST", rs.getLong("lost"));
                      g.duration.addAll(ints(rs.getArray("duration_ms")));
                      g.startLag.addAll(ints(rs.getArray("start_lag_ms")));
                      return key;
                    })
                .forEach(k -> {}));
    return List.copyOf(groups.values());
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

  private static int[] ints(Array array) throws SQLException {
    if (array == null) {
      return null;
    }
    Object values = array.getArray();
    if (values instanceof Integer[] boxed) {
      int[] out = new int[boxed.length];
      for (int i = 0; i < boxed.length; i++) {
        out[i] = boxed[i] == null ? 0 : boxed[i];
      }
      return out;
    }
    return (int[]) values;
  }
}
