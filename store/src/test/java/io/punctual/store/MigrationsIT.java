package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.testing.StoreStack;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MigrationsIT {
  private final StoreStack stack = new StoreStack();
  private final Jdbi jdbi = stack.database.jdbi();

  @AfterEach
  void close() {
    stack.close();
  }

  private Map<String, Integer> checksums() {
    return jdbi.withHandle(
        h ->
            h
                .createQuery(
                    "SELECT version, checksum FROM punctual_schema_history WHERE version IS NOT NULL")
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2)))
                .list()
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
  }

  @Test
  void theEditedMigrationsHaveTheChecksumsMigrationsRealignsTo() {
    Map<String, Integer> recorded = checksums();
    for (Migrations.Edited e : Migrations.EDITED) {
      assertThat(recorded.get(e.version())).as("V" + e.version()).isEqualTo(e.now());
    }
  }

  @Test
  void aDatabaseMigratedBeforeTheEditsMigratesAgainAndKeepsItsPartitionFunctions() {
    // As an older release left it: the former checksums on record.
    jdbi.useHandle(
        h -> {
          for (Migrations.Edited e : Migrations.EDITED) {
            h.createUpdate("UPDATE punctual_schema_history SET checksum = :c WHERE version = :v")
                .bind("c", e.recorded())
                .bind("v", e.version())
                .execute();
          }
        });

    Migrations.migrate(stack.database.dataSource());

    Map<String, Integer> recorded = checksums();
    for (Migrations.Edited e : Migrations.EDITED) {
      assertThat(recorded.get(e.version())).as("V" + e.version()).isEqualTo(e.now());
    }
    int functions =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT count(*) FROM pg_proc WHERE proname IN"
                            + " ('punctual_ensure_partitions', 'punctual_drop_expired_partitions')")
                    .mapTo(Integer.class)
                    .one());
    assertThat(functions).isEqualTo(2);
  }

  @Test
  void aChecksumOtherThanTheFormerOneIsLeftForFlywayToRefuse() {
    jdbi.useHandle(
        h -> h.execute("UPDATE punctual_schema_history SET checksum = 12345 WHERE version = '2'"));

    Migrations.realignEdited(stack.database.dataSource());

    assertThat(checksums().get("2")).isEqualTo(12345);
  }

  /**
   * An application's database with tables of its own and none of Punctual's (an application that
   * submits jobs in its own transactions shares the database): every migration runs.
   */
  @Test
  void aDatabaseHoldingAnApplicationsTablesOnlyIsMigratedWhole() {
    jdbi.useHandle(
        h -> {
          h.execute("DROP SCHEMA public CASCADE");
          h.execute("CREATE SCHEMA public");
          h.execute("CREATE TABLE orders (id bigint PRIMARY KEY)");
        });

    Migrations.migrate(stack.database.dataSource());

    assertThat(checksums()).containsKeys("1", "2");
    boolean both =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT to_regclass('jobs') IS NOT NULL AND to_regclass('orders') IS NOT NULL")
                    .mapTo(Boolean.class)
                    .one());
    assertThat(both).isTrue();
  }
}
