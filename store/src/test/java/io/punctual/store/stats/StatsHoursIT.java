package io.punctual.store.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.stats.StatsReader.GroupBy;
import io.punctual.store.testing.MigrationScript;
import io.punctual.store.testing.StatsGroups;
import io.punctual.store.testing.StoreStack;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * job_stats_hours against the minutes it is summed from: random minute rows over three days (three
 * namespaces, three types, random counts and histograms with gaps), the hours filled by StatsRollup
 * a day per pass, then reads of random ranges with odd edges answered from the hours compared with
 * the same reads answered from the minutes alone.
 */
class StatsHoursIT {
  private static final List<String> NAMESPACES = List.of("h-a", "h-b", "h-c");
  private static final List<String> TYPES = List.of("mail", "report", "sync");

  private final StoreStack stack = new StoreStack();
  private final Jdbi jdbi = stack.database.jdbi();
  private final Random random = new Random(24);
  private Instant first;
  private Instant last;

  @AfterEach
  void close() {
    stack.close();
  }

  /** Minutes [first, last) at random, and the rollup's progress an hour after them. */
  @BeforeEach
  void randomMinutes() {
    first = Instant.parse("2026-03-10T00:00:00Z").plus(Duration.ofMinutes(37));
    last = first.plus(Duration.ofDays(3)).plus(Duration.ofMinutes(11));
    jdbi.useHandle(
        h -> {
          PreparedBatch batch =
              h.prepareBatch(
                  "INSERT INTO job_stats_minutes (minute, namespace, type, started, succeeded,"
                      + " failed, timed_out, cancelled, lost, duration_ms, start_lag_ms)"
                      + " VALUES (:minute, :namespace, :type, :started, :succeeded, :failed,"
                      + " :timedOut, :cancelled, :lost, :duration, :lag)");
          for (Instant m = first; m.isBefore(last); m = m.plus(Duration.ofMinutes(1))) {
            for (String ns : NAMESPACES) {
              for (String type : TYPES) {
                if (random.nextInt(3) == 0) {
                  continue; // a minute without this namespace and type
                }
                batch
                    .bind("minute", m)
                    .bind("namespace", ns)
                    .bind("type", type)
                    .bind("started", random.nextInt(50))
                    .bind("succeeded", random.nextInt(50))
                    .bind("failed", random.nextInt(5))
                    .bind("timedOut", random.nextInt(2))
                    .bind("cancelled", random.nextInt(2))
                    .bind("lost", random.nextInt(2))
                    .bind("duration", histogram())
                    .bind("lag", histogram())
                    .add();
              }
            }
          }
          batch.execute();
          h.createUpdate("INSERT INTO job_stats_rollup (id, done_until) VALUES (1, :d)")
              .bind("d", last.plus(Duration.ofHours(1)))
              .execute();
        });
  }

  /** A stored histogram: up to 60 buckets, many empty, the last one not (as StatsHistogram's). */
  private Integer[] histogram() {
    int length = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(60);
    Integer[] counts = new Integer[length];
    for (int i = 0; i < length; i++) {
      counts[i] = random.nextInt(3) == 0 ? random.nextInt(1000) : 0;
    }
    if (length > 0) {
      counts[length - 1] = 1 + random.nextInt(10);
    }
    return counts;
  }

  private StatsRollup rollup(Instant now, Duration retention) {
    return new StatsRollup(
        jdbi,
        Clock.fixed(now, ZoneOffset.UTC),
        Duration.ofMinutes(2),
        Duration.ofHours(1),
        retention);
  }

  /** Fills the hours a pass at a time until a pass has nothing to do; the passes that filled. */
  private List<StatsRollup.Hours> fillAll(StatsRollup rollup) {
    List<StatsRollup.Hours> passes = new ArrayList<>();
    for (StatsRollup.Hours h = rollup.fillHours(); h.filled(); h = rollup.fillHours()) {
      passes.add(h);
    }
    return passes;
  }

  private Instant hoursUntil() {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT hours_until FROM job_stats_rollup WHERE id = 1")
                .mapTo(Instant.class)
                .findOne()
                .orElse(null));
  }

  private Instant daysUntil() {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT days_until FROM job_stats_rollup WHERE id = 1")
                .mapTo(Instant.class)
                .findOne()
                .orElse(null));
  }

  /**
   * A read of the minutes only: a reader with nothing kept while no hour and no day is marked
   * filled.
   */
  private String fromMinutes(List<String> namespaces, Instant from, Instant to, GroupBy by) {
    Instant until = hoursUntil();
    Instant days = daysUntil();
    jdbi.useHandle(
        h -> h.execute("UPDATE job_stats_rollup SET hours_until = NULL, days_until = NULL"));
    try {
      return StatsGroups.text(new StatsReader(jdbi).groups(namespaces, from, to, by));
    } finally {
      jdbi.useHandle(
          h ->
              h.createUpdate("UPDATE job_stats_rollup SET hours_until = :u, days_until = :d")
                  .bind("u", until)
                  .bind("d", days)
                  .execute());
    }
  }

  @Test
  void hoursAnswerAsTheirMinutesForRangesWithOddEdges() {
    Instant now = last.plus(Duration.ofHours(1)).plusSeconds(20);
    List<StatsRollup.Hours> passes = fillAll(rollup(now, Duration.ofDays(5)));

    // A day per pass from the hour of now - retention, up to the last settled hour.
    Instant settled =
        last.plus(Duration.ofHours(1)).minus(StatsReader.FINAL_AFTER).truncatedTo(ChronoUnit.HOURS);
    assertThat(passes).hasSizeGreaterThanOrEqualTo(4);
    assertThat(passes)
        .allSatisfy(
            p -> assertThat(Duration.between(p.from(), p.to())).isLessThan(Duration.ofHours(25)));
    assertThat(hoursUntil()).isEqualTo(settled);
    long hourRows =
        jdbi.withHandle(
            h -> h.createQuery("SELECT count(*) FROM job_stats_hours").mapTo(Long.class).one());
    assertThat(hourRows).isEqualTo(73L * NAMESPACES.size() * TYPES.size());
    // The whole UTC days those hours complete, summed from them: 03-10, 03-11 and 03-12.
    assertThat(daysUntil()).isEqualTo(settled.truncatedTo(ChronoUnit.DAYS));
    long dayRows =
        jdbi.withHandle(
            h -> h.createQuery("SELECT count(*) FROM job_stats_days").mapTo(Long.class).one());
    assertThat(dayRows).isEqualTo(3L * NAMESPACES.size() * TYPES.size());

    StatsReader warm = new StatsReader(jdbi);
    long span = Duration.between(first, last).plusHours(2).toMillis();
    for (int i = 0; i < 25; i++) {
      Instant from =
          first.minus(Duration.ofHours(1)).plusMillis((long) (random.nextDouble() * span));
      Instant to = from.plusMillis((long) (random.nextDouble() * (span / 2)));
      List<String> namespaces = i % 3 == 0 ? null : NAMESPACES.subList(0, 1 + i % 2);
      for (GroupBy by : GroupBy.values()) {
        String expected = fromMinutes(namespaces, from, to, by);
        String range = from + " .. " + to + " " + namespaces + " " + by;
        assertThat(StatsGroups.text(new StatsReader(jdbi).groups(namespaces, from, to, by)))
            .as(range)
            .isEqualTo(expected);
        assertThat(StatsGroups.text(warm.groups(namespaces, from, to, by)))
            .as(range)
            .isEqualTo(expected);
      }
    }
    // Reads of everything, and of a long range that the warm reader has mostly kept.
    for (GroupBy by : GroupBy.values()) {
      Instant from = first.minus(Duration.ofDays(1));
      Instant to = last.plus(Duration.ofDays(1));
      assertThat(StatsGroups.text(new StatsReader(jdbi).groups(null, from, to, by)))
          .isEqualTo(fromMinutes(null, from, to, by))
          .contains("STARTED");
      assertThat(StatsGroups.text(warm.groups(null, from, to, by)))
          .isEqualTo(fromMinutes(null, from, to, by));
    }
    assertThat(fillAll(rollup(now, Duration.ofDays(5)))).isEmpty();
  }

  /**
   * A reaper whose sessions run in a zone half an hour off UTC (the driver sends the JVM's zone)
   * still writes whole UTC hours and days: the reader asks for those, so an hour keyed at :30 would
   * be read as missing.
   */
  @Test
  void hoursAndDaysAreWholeUtcOnesWhateverTheSessionsTimeZone() {
    Jdbi kolkata =
        Jdbi.create(
            () -> {
              Connection c =
                  DriverManager.getConnection(
                      stack.postgres.url, stack.postgres.user, stack.postgres.password);
              try (Statement st = c.createStatement()) {
                st.execute("SET TIME ZONE 'Asia/Kolkata'");
              }
              return c;
            });
    Instant now = last.plus(Duration.ofHours(1));
    StatsRollup rollup =
        new StatsRollup(
            kolkata,
            Clock.fixed(now, ZoneOffset.UTC),
            Duration.ofMinutes(2),
            Duration.ofHours(1),
            Duration.ofDays(5));
    while (rollup.fillHours().filled()) {
      // a day of hours per pass, then the days
    }
    long offHour =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM job_stats_hours"
                            + " WHERE hour <> date_trunc('hour', hour, 'UTC')")
                    .mapTo(Long.class)
                    .one());
    long offDay =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM job_stats_days"
                            + " WHERE day <> date_trunc('day', day, 'UTC')")
                    .mapTo(Long.class)
                    .one());
    assertThat(offHour).as("hour rows not on a UTC hour").isZero();
    assertThat(offDay).as("day rows not on a UTC day").isZero();
    for (GroupBy by : GroupBy.values()) {
      Instant from = first.minus(Duration.ofDays(1));
      Instant to = last.plus(Duration.ofDays(1));
      assertThat(StatsGroups.text(new StatsReader(jdbi).groups(null, from, to, by)))
          .isEqualTo(fromMinutes(null, from, to, by));
    }
  }

  /**
   * V23 on a store whose hours a reaper in such a zone keyed at :30 (as V21's rollup did): those
   * rows and the days go, the hours and days are filled again, and reads match the minutes; run on
   * a store without such rows it changes nothing.
   */
  @Test
  void v23RefillsHoursKeyedOffTheUtcHour() throws Exception {
    Instant now = last.plus(Duration.ofHours(1));
    fillAll(rollup(now, Duration.ofDays(5)));
    Instant filled = hoursUntil();
    runV23();
    assertThat(hoursUntil()).as("a store on whole hours is not touched").isEqualTo(filled);

    jdbi.useHandle(
        h -> h.execute("UPDATE job_stats_hours SET hour = hour - interval '30 minutes'"));
    runV23();
    long left =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT (SELECT count(*) FROM job_stats_hours)"
                            + " + (SELECT count(*) FROM job_stats_days)")
                    .mapTo(Long.class)
                    .one());
    assertThat(left).as("hour rows off the hour and the days summed from them").isZero();
    assertThat(hoursUntil()).isNull();
    assertThat(daysUntil()).isNull();

    fillAll(rollup(now, Duration.ofDays(5)));
    assertThat(hoursUntil()).isEqualTo(filled);
    for (GroupBy by : GroupBy.values()) {
      Instant from = first.minus(Duration.ofDays(1));
      Instant to = last.plus(Duration.ofDays(1));
      assertThat(StatsGroups.text(new StatsReader(jdbi).groups(null, from, to, by)))
          .isEqualTo(fromMinutes(null, from, to, by));
    }
  }

  private void runV23() throws SQLException {
    MigrationScript.run(jdbi, "V23__job_stats_hours_on_utc_hours.sql");
  }

  @Test
  void aWholeHourIsReadFromTheHoursAndAPartOfOneFromItsMinutes() {
    Instant now = last.plus(Duration.ofHours(1));
    fillAll(rollup(now, Duration.ofDays(5)));
    Instant hour = first.plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
    List<String> ns = List.of("h-a");
    long whole =
        StatsGroups.started(
            new StatsReader(jdbi).groups(ns, hour, hour.plus(Duration.ofHours(1)), GroupBy.TYPE));
    long part =
        StatsGroups.started(
            new StatsReader(jdbi)
                .groups(ns, hour, hour.plus(Duration.ofMinutes(59)), GroupBy.TYPE));

    // A minute row changed behind the rollup's back: the hour's row does not see it.
    jdbi.useHandle(
        h ->
            h.createUpdate(
                    "UPDATE job_stats_minutes SET started = started + 1000 WHERE namespace = 'h-a'"
                        + " AND minute = :m AND type = (SELECT min(type) FROM job_stats_minutes"
                        + " WHERE namespace = 'h-a' AND minute = :m)")
                .bind("m", hour.plus(Duration.ofMinutes(5)))
                .execute());
    assertThat(
            StatsGroups.started(
                new StatsReader(jdbi)
                    .groups(ns, hour, hour.plus(Duration.ofHours(1)), GroupBy.TYPE)))
        .isEqualTo(whole);
    assertThat(
            StatsGroups.started(
                new StatsReader(jdbi)
                    .groups(ns, hour, hour.plus(Duration.ofMinutes(59)), GroupBy.TYPE)))
        .isEqualTo(part + 1000);
  }

  @Test
  void retentionDropsMinutesAndHoursByTheSameWholeHour() {
    Instant now = last.plus(Duration.ofHours(1));
    fillAll(rollup(now, Duration.ofDays(5)));
    // A retention that ends 23 minutes into the second day of data: the pass cuts into it.
    Duration retention =
        Duration.between(first.plus(Duration.ofDays(1)).plus(Duration.ofMinutes(23)), now);
    Instant before = now.minus(retention).truncatedTo(ChronoUnit.HOURS);
    rollup(now, retention).runOnce();

    Instant[] oldest =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT (SELECT min(minute) FROM job_stats_minutes),"
                            + " (SELECT min(hour) FROM job_stats_hours)")
                    .map(
                        (rs, ctx) ->
                            new Instant[] {
                              rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant()
                            })
                    .one());
    assertThat(oldest[0]).isAfterOrEqualTo(before).isBefore(before.plus(Duration.ofMinutes(2)));
    assertThat(oldest[1]).isEqualTo(before);
    for (GroupBy by : GroupBy.values()) {
      Instant from = first.minus(Duration.ofDays(1));
      Instant to = last.plus(Duration.ofDays(1));
      assertThat(StatsGroups.text(new StatsReader(jdbi).groups(null, from, to, by)))
          .isEqualTo(fromMinutes(null, from, to, by));
    }
  }
}
