package io.punctual.api.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.api.stats.StatsWarmup;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.stats.StatsReader;
import io.punctual.store.stats.StatsReader.GroupBy;
import io.punctual.store.stats.StatsRollup;
import io.punctual.store.testing.StatsGroups;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The statistics warm-up keeps what the console's overview asks first: minute rows over the last
 * two days in three namespaces, their hours filled; after the warm-up the stored rows of the whole
 * hours are deleted, and the overview's read of the last day of every namespace still answers what
 * it answered before the deletion (from the hours the warm-up kept), where a reader without the
 * warm-up answers less.
 */
class StatsWarmupIT {
  private static final Instant NOW = Instant.parse("2026-03-12T10:23:17Z");

  private final TestStack stack = new TestStack();
  private final Jdbi jdbi = stack.database.jdbi();
  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

  @AfterEach
  void close() {
    stack.close();
  }

  @BeforeEach
  void twoDaysOfMinutes() {
    Instant first = NOW.minus(Duration.ofDays(2));
    jdbi.useHandle(
        h -> {
          PreparedBatch batch =
              h.prepareBatch(
                  "INSERT INTO job_stats_minutes (minute, namespace, type, started, succeeded,"
                      + " failed, timed_out, cancelled, lost, duration_ms, start_lag_ms)"
                      + " VALUES (date_trunc('minute', CAST(:minute AS timestamptz)), :namespace,"
                      + " 'report', 3, 2, 1, 0, 0, 0, '{0,2,1}', '{1}')");
          for (Instant m = first; m.isBefore(NOW); m = m.plus(Duration.ofMinutes(7))) {
            for (String ns : new String[] {"w-a", "w-b", "w-c"}) {
              batch.bind("minute", m).bind("namespace", ns).add();
            }
          }
          batch.execute();
          h.createUpdate("INSERT INTO job_stats_rollup (id, done_until) VALUES (1, :d)")
              .bind("d", NOW)
              .execute();
        });
    StatsRollup rollup =
        new StatsRollup(
            jdbi, clock, Duration.ofMinutes(2), Duration.ofHours(1), Duration.ofDays(30));
    while (rollup.fillHours().filled()) {
      // a day of hours per pass
    }
  }

  private String overview(StatsReader reader) {
    return StatsGroups.text(
        reader.groups(null, NOW.minus(Duration.ofDays(1)), NOW, GroupBy.NAMESPACE));
  }

  /** Deletes the stored rows of every whole hour of the last day but the last two. */
  private void deleteWholeHours() {
    Instant from = NOW.minus(Duration.ofHours(22)).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
    Instant to = NOW.minus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
    jdbi.useHandle(
        h -> {
          int hours =
              h.createUpdate("DELETE FROM job_stats_hours WHERE hour >= :f AND hour < :t")
                  .bind("f", from)
                  .bind("t", to)
                  .execute();
          assertThat(hours).as("hour rows deleted").isGreaterThan(0);
          h.createUpdate("DELETE FROM job_stats_minutes WHERE minute >= :f AND minute < :t")
              .bind("f", from)
              .bind("t", to)
              .execute();
        });
  }

  @Test
  void theOverviewsFirstReadAnswersFromWhatTheWarmupKept() throws Exception {
    String stored = overview(new StatsReader(jdbi));
    assertThat(stored).contains("w-a").contains("w-b").contains("w-c");

    StatsReader warmed = new StatsReader(jdbi);
    StatsWarmup warmup = new StatsWarmup(warmed, clock, Duration.ofDays(7));
    warmup.start(); // waits for it (well under StatsWarmup.WAIT here)
    assertThat(warmup.runOnce()).as("namespaces read").isEqualTo(3);

    deleteWholeHours();
    assertThat(overview(warmed)).as("read after the warm-up").isEqualTo(stored);
    assertThat(overview(new StatsReader(jdbi)))
        .as("a reader without the warm-up reads the store, which lost those hours")
        .isNotEqualTo(stored);
  }

  @Test
  void zeroTurnsItOffAndAFailureIsNotRaised() throws Exception {
    String stored = overview(new StatsReader(jdbi));
    StatsReader reader = new StatsReader(jdbi);
    StatsWarmup off = new StatsWarmup(reader, clock, Duration.ZERO);
    off.start();
    assertThat(off.runOnce()).isEqualTo(-1);
    deleteWholeHours();
    assertThat(overview(reader)).as("nothing was kept").isNotEqualTo(stored);

    jdbi.useHandle(h -> h.execute("ALTER TABLE job_stats_hours RENAME TO job_stats_hours_gone"));
    try {
      StatsWarmup failing = new StatsWarmup(new StatsReader(jdbi), clock, Duration.ofDays(7));
      failing.start(); // logs, does not throw: the API still starts
      assertThat(failing.runOnce()).isEqualTo(-1);
    } finally {
      jdbi.useHandle(h -> h.execute("ALTER TABLE job_stats_hours_gone RENAME TO job_stats_hours"));
    }
  }
}
