package io.punctual.store;

import io.punctual.model.JobId;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * A batch of rows bound as one array per column, for statements of the form {@code unnest(:a, :b,
 * ...)}: a batch of hundreds costs one statement and one round trip. The arrays are typed ({@code
 * UUID[]}, {@code Long[]}, {@code Integer[]}, {@code String[]}), so {@link BinaryArrays} sends them
 * in PostgreSQL's binary format.
 *
 * @param <T> one row of the batch
 */
final class UnnestColumns<T> {
  private final List<T> rows;
  private final Map<String, Object> arrays = new LinkedHashMap<>();

  private UnnestColumns(List<T> rows) {
    this.rows = rows;
  }

  static <T> UnnestColumns<T> of(List<T> rows) {
    return new UnnestColumns<>(rows);
  }

  /**
   * The job keys of the rows: {@code :ids} and {@code :scheduledMs} (each id's scheduled time as
   * epoch milliseconds), and the batch's {@code :minScheduled} and {@code :maxScheduled}.
   */
  UnnestColumns<T> jobKeys(Function<T, UUID> id) {
    UUID[] ids = rows.stream().map(id).toArray(UUID[]::new);
    arrays.put("ids", ids);
    arrays.put("scheduledMs", scheduledMillis(List.of(ids)));
    arrays.putAll(scheduledBounds(List.of(ids)));
    return this;
  }

  /** The ids of the rows that match, as {@code :name}: which rows take one of several branches. */
  UnnestColumns<T> idsWhere(String name, Function<T, UUID> id, Function<T, Boolean> matches) {
    arrays.put(name, rows.stream().filter(matches::apply).map(id).toArray(UUID[]::new));
    return this;
  }

  UnnestColumns<T> uuids(String name, Function<T, UUID> column) {
    arrays.put(name, rows.stream().map(column).toArray(UUID[]::new));
    return this;
  }

  UnnestColumns<T> longs(String name, Function<T, Long> column) {
    arrays.put(name, rows.stream().map(column).toArray(Long[]::new));
    return this;
  }

  /** Epoch milliseconds of an instant column (null stays null). */
  UnnestColumns<T> millis(String name, Function<T, Instant> column) {
    return longs(
        name,
        row -> {
          Instant at = column.apply(row);
          return at == null ? null : at.toEpochMilli();
        });
  }

  UnnestColumns<T> ints(String name, Function<T, Integer> column) {
    arrays.put(name, rows.stream().map(column).toArray(Integer[]::new));
    return this;
  }

  UnnestColumns<T> texts(String name, Function<T, String> column) {
    arrays.put(name, rows.stream().map(column).toArray(String[]::new));
    return this;
  }

  /** Binds every column on {@code statement}; returns it. */
  <S extends SqlStatement<S>> S bind(S statement) {
    arrays.forEach(statement::bind);
    return statement;
  }

  /**
   * The earliest and latest scheduled time of a batch, bound as {@code :minScheduled} and {@code
   * :maxScheduled}: constant bounds let the planner prune to the partitions the batch touches.
   */
  static Map<String, Object> scheduledBounds(Collection<UUID> ids) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (UUID id : ids) {
      long ms = JobId.scheduledAt(id).toEpochMilli();
      min = Math.min(min, ms);
      max = Math.max(max, ms);
    }
    return Map.of(
        "minScheduled", Instant.ofEpochMilli(min), "maxScheduled", Instant.ofEpochMilli(max));
  }

  /** Each id's scheduled time as epoch milliseconds. */
  static Long[] scheduledMillis(Collection<UUID> ids) {
    return ids.stream().map(id -> JobId.scheduledAt(id).toEpochMilli()).toArray(Long[]::new);
  }
}
