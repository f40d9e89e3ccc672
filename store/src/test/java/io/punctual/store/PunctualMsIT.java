package io.punctual.store;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.model.Job;
import io.punctual.model.NewJob;
import io.punctual.store.testing.MigrationScript;
import io.punctual.store.testing.StoreStack;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code punctual_ms}, epoch milliseconds to timestamptz, is exact for every millisecond a job id
 * can carry (48 bits, to the year 10889) and before 1970, whatever the session's time zone; and
 * PostgreSQL still inlines it (an immutable body), so that it costs no function call per row.
 */
class PunctualMsIT {
  private final StoreStack stack = new StoreStack();
  private final Jdbi jdbi = stack.database.jdbi();

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void everyMillisecondComesBackExactly() {
    List<Long> millis = new ArrayList<>();
    long latest = Instant.parse("4000-01-01T00:00:00Z").toEpochMilli();
    for (long base :
        new long[] {0, latest, 68_719_476_736_000L, (1L << 48) - 1, 1_764_000_000_000L}) {
      for (long d = -1_500; d <= 1_500; d++) {
        millis.add(base + d);
      }
    }
    SplittableRandom random = new SplittableRandom(20);
    for (int i = 0; i < 100_000; i++) {
      millis.add(random.nextLong(-(1L << 40), 1L << 48));
    }
    List<String> wrong =
        jdbi.withHandle(
            h -> {
              h.execute("SET TIME ZONE 'Asia/Kathmandu'");
              return h
                  .createQuery(
                      "SELECT ms, punctual_ms(ms) FROM unnest(CAST(:ms AS bigint[])) AS t(ms)")
                  .bindArray("ms", Long.class, millis)
                  .map(
                      (rs, ctx) -> {
                        long ms = rs.getLong(1);
                        Instant got = rs.getObject(2, OffsetDateTime.class).toInstant();
                        return got.equals(Instant.ofEpochMilli(ms)) ? null : ms + " -> " + got;
                      })
                  .list()
                  .stream()
                  .filter(w -> w != null)
                  .limit(10)
                  .toList();
            });
    assertThat(wrong).isEmpty();
  }

  /**
   * V1's double was a microsecond off from 2242 on: a job stored then with such a time is put back
   * on its millisecond by V20 (run here again on a row set back to V1's value), and found by its
   * id.
   */
  @Test
  void aJobStoredWithV1sDriftIsFoundAgainAfterV20() throws Exception {
    long ms = 8_589_993_586_429L; // 2242-03-17T05:19:46.429Z, V1 stored it as .429001
    Job job =
        stack
            .submissions
            .submit(List.of(aJob().runAt(Instant.ofEpochMilli(ms)).build()))
            .get(0)
            .job();
    UUID id = job.id();
    jdbi.useHandle(
        h ->
            h.createUpdate(
                    "UPDATE jobs SET scheduled_at = to_timestamp(CAST(:ms AS double precision) / 1000)"
                        + " WHERE id = :id")
                .bind("ms", ms)
                .bind("id", id)
                .execute());
    assertThat(scheduledAt(id)).as("the drift V1 left").isNotEqualTo(Instant.ofEpochMilli(ms));
    assertThat(stack.queries.find(NewJob.DEFAULT_NAMESPACE, id)).as("lost while drifted").isEmpty();

    MigrationScript.run(jdbi, "V20__punctual_ms_exact.sql");

    assertThat(scheduledAt(id)).isEqualTo(Instant.ofEpochMilli(ms));
    assertThat(stack.queries.find(NewJob.DEFAULT_NAMESPACE, id)).isPresent();
  }

  private Instant scheduledAt(UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery("SELECT scheduled_at FROM jobs WHERE id = :id")
                .bind("id", id)
                .mapTo(OffsetDateTime.class)
                .one()
                .toInstant());
  }

  @Test
  void itIsInlined() {
    String plan =
        jdbi.withHandle(
            h ->
                String.join(
                    "\n",
                    h.createQuery(
                            "EXPLAIN VERBOSE SELECT punctual_ms(g) FROM generate_series(1, 3) g")
                        .mapTo(String.class)
                        .list()));
    assertThat(plan).doesNotContain("punctual_ms").contains("make_interval");
  }
}
