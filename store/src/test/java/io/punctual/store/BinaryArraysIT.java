package io.punctual.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.store.config.PostgresSettings;
import io.punctual.store.testing.StoreStack;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.argument.Argument;
import org.jdbi.v3.core.argument.Arguments;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.core.BaseConnection;

class BinaryArraysIT {
  private final StoreStack stack = new StoreStack();
  private final Jdbi jdbi = stack.database.jdbi();

  @AfterEach
  void close() {
    stack.close();
  }

  @Test
  void aUuidArrayIsByteForByteWhatPostgresSendsForTheSameArray() {
    UUID[] ids = {UUID.randomUUID(), null, new UUID(0, 0), new UUID(-1, -1), UUID.randomUUID()};
    BinaryArrays.UuidArray array = new BinaryArrays.UuidArray(ids);
    byte[] ours = new byte[array.lengthInBytes()];
    array.toBytes(ours, 0);

    byte[] postgres =
        jdbi.withHandle(
            h ->
                h.createQuery("SELECT array_send(CAST(:text AS uuid[]))")
                    .bind("text", array.getValue())
                    .mapTo(byte[].class)
                    .one());

    assertThat(ours).isEqualTo(postgres);
  }

  @Test
  void arraysOfEachTypeRoundTripWithNullsAndAwkwardTextAsTheSameSqlTypesAsBefore() {
    UUID[] ids = {UUID.randomUUID(), null, UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID()};
    Long[] longs = {Long.MIN_VALUE, null, 0L, 1_764_000_000_000L, Long.MAX_VALUE};
    Integer[] ints = {Integer.MIN_VALUE, 7, null, 0, Integer.MAX_VALUE};
    String[] texts = {"NULL", null, "a \"quoted\", {braced} \\ back-slashed", "", "zoë ✓ 日本"};

    List<Map<String, Object>> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(
                        "SELECT pg_typeof(:ids)::text AS ids_type,"
                            + " pg_typeof(:longs)::text AS longs_type,"
                            + " pg_typeof(:ints)::text AS ints_type,"
                            + " pg_typeof(:texts)::text AS texts_type, v.*"
                            + " FROM unnest(:ids, :longs, :ints, :texts) WITH ORDINALITY"
                            + " AS v(id, l, i, s, n) ORDER BY n")
                    .bind("ids", ids)
                    .bind("longs", longs)
                    .bind("ints", ints)
                    .bind("texts", texts)
                    .mapToMap()
                    .list());

    assertThat(rows).hasSize(5);
    assertThat(rows.get(0))
        .containsEntry("ids_type", "uuid[]")
        .containsEntry("longs_type", "bigint[]")
        .containsEntry("ints_type", "integer[]")
        .containsEntry("texts_type", "character varying[]");
    List<Object> idsBack = new ArrayList<>();
    List<Object> longsBack = new ArrayList<>();
    List<Object> intsBack = new ArrayList<>();
    List<Object> textsBack = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      idsBack.add(row.get("id"));
      longsBack.add(row.get("l"));
      intsBack.add(row.get("i"));
      textsBack.add(row.get("s"));
    }
    assertThat(idsBack).containsExactly((Object[]) ids);
    assertThat(longsBack).containsExactly((Object[]) longs);
    assertThat(intsBack).containsExactly((Object[]) ints);
    assertThat(textsBack).containsExactly((Object[]) texts);
  }

  @Test
  void aConnectionInTheSimpleQueryModeGetsTextLiteralsAndTheSameRows() {
    PostgresSettings simple =
        new PostgresSettings(
            stack.postgres.url + "?preferQueryMode=simple",
            stack.postgres.user,
            stack.postgres.password);
    UUID[] ids = {UUID.randomUUID(), null, UUID.randomUUID()};
    Long[] longs = {1L, null, 3L};
    String[] texts = {"a \"b\"", null, "NULL"};

    try (Database database = Database.connect(simple, "simple")) {
      List<Map<String, Object>> rows =
          database
              .jdbi()
              .withHandle(
                  h ->
                      h.createQuery(
                              // Untyped there (the driver's literals always were): name the types.
                              "SELECT v.* FROM unnest(CAST(:ids AS uuid[]), CAST(:longs AS"
                                  + " bigint[]), CAST(:texts AS text[])) WITH ORDINALITY"
                                  + " AS v(id, l, s, n) ORDER BY n")
                          .bind("ids", ids)
                          .bind("longs", longs)
                          .bind("texts", texts)
                          .mapToMap()
                          .list());

      assertThat(rows).extracting(r -> r.get("id")).containsExactly((Object[]) ids);
      assertThat(rows).extracting(r -> r.get("l")).containsExactly((Object[]) longs);
      assertThat(rows).extracting(r -> r.get("s")).containsExactly((Object[]) texts);
    }
  }

  @Test
  void anEmptyArrayBindsAsAnEmptyArray() {
    long count =
        jdbi.withHandle(
            h ->
                h.createQuery("SELECT count(*) FROM unnest(:ids, :texts)")
                    .bind("ids", new UUID[0])
                    .bind("texts", new String[0])
                    .mapTo(Long.class)
                    .one());

    assertThat(count).isZero();
  }

  @Test
  void theStoreBindsArraysItselfAndItsConnectionsSendUuidArraysBinary() throws Exception {
    Argument argument =
        jdbi.withHandle(
            h ->
                h.getConfig(Arguments.class)
                    .findFor(UUID[].class, new UUID[] {UUID.randomUUID()})
                    .orElseThrow());
    // Jdbi's own array argument (java.sql.Array, a text literal) is what this replaces.
    assertThat(argument.getClass().getName()).doesNotStartWith("org.jdbi.");
    for (Object values : new Object[] {new Long[] {1L}, new Integer[] {1}, new String[] {"a"}}) {
      Argument other =
          jdbi.withHandle(
              h -> h.getConfig(Arguments.class).findFor(values.getClass(), values).orElseThrow());
      assertThat(other.getClass().getName())
          .as("%s", values.getClass().getSimpleName())
          .isNotEqualTo("org.jdbi.v3.core.array.SqlArrayArgument");
    }

    try (Connection c = stack.database.dataSource().getConnection()) {
      BaseConnection pg = c.unwrap(BaseConnection.class);
      assertThat(pg.binaryTransferSend(BinaryArrays.UUID_ARRAY_OID)).isTrue();
    }
  }
}
