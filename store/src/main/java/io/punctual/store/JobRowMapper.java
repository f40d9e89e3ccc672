package io.punctual.store;

import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.model.RunCondition;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/** Maps a {@code jobs} row to {@link Job}. */
public final class JobRowMapper implements RowMapper<Job> {
  static final JobRowMapper INSTANCE = new JobRowMapper();

  @Override
  public Job map(ResultSet rs, StatementContext ctx) throws SQLException {
    long timeoutMs = rs.getLong("timeout_ms");
    Duration timeout = rs.wasNull() ? null : Duration.ofMillis(timeoutMs);
    return new Job(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        rs.getString("type"),
        Json.readTree(rs.getString("payload")),
        Priority.ofRank(rs.getShort("priority")),
        JobState.valueOf(rs.getString("status")),
        timestamptz(rs, "run_at"),
        rs.getInt("attempt"),
        rs.getInt("max_attempts"),
        backoff(rs.getString("backoff")),
        timeout,
        rs.getString("idempotency_key"),
        tags(rs.getArray("tags")),
        Json.readTree(rs.getString("callback")),
        Json.readTree(rs.getString("result")),
        rs.getString("last_error"),
        rs.getString("worker_id"),
        timestamptz(rs, "heartbeat_at"),
        timestamptz(rs, "started_at"),
        timestamptz(rs, "finished_at"),
        timestamptz(rs, "created_at"),
        timestamptz(rs, "updated_at"),
        rs.getObject("parent_id", UUID.class),
        rs.getObject("schedule_id", UUID.class),
        rs.getObject("workflow_id", UUID.class),
        runCondition(rs.getString("run_condition")),
        timestamptz(rs, "occurrence_at"),
        rs.getString("traceparent"));
  }

  /**
   * Most jobs share a handful of backoff policies; parsing each row's JSON again showed up in the
   * claim path, so parsed policies are kept (a bounded cache: policies are immutable).
   */
  private static final int BACKOFF_CACHE_LIMIT = 1_024;

  private static final Map<String, Backoff> BACKOFFS = new ConcurrentHashMap<>();

  private static Backoff backoff(String json) {
    Backoff cached = BACKOFFS.get(json);
    if (cached != null) {
      return cached;
    }
    Backoff parsed = Json.read(json, Backoff.class);
    if (BACKOFFS.size() < BACKOFF_CACHE_LIMIT) {
      BACKOFFS.put(json, parsed);
    }
    return parsed;
  }

  private static RunCondition runCondition(String value) {
    return value == null ? null : RunCondition.parse(value).orElseThrow();
  }

  /**
   * The queue entry of a row with the columns {@code id, namespace, priority, run_at} (a
   * statement's RETURNING or SELECT list): where the job goes in Redis, or comes out of it.
   */
  public static QueueEntry queueEntry(ResultSet rs, StatementContext ctx) throws SQLException {
    return new QueueEntry(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        Priority.ofRank(rs.getShort("priority")),
        timestamptz(rs, "run_at"));
  }

  /**
   * A {@code timestamptz} column of {@code jobs} (all of its times are) as an instant: read as an
   * {@link OffsetDateTime}, which the driver decodes directly, where {@link ResultSet#getTimestamp}
   * goes through a {@code Calendar} per value (a third of the time a claim of 512 jobs spent
   * mapping its rows).
   */
  private static Instant timestamptz(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private static List<String> tags(Array array) throws SQLException {
    if (array == null) {
      return List.of();
    }
    return Arrays.asList((String[]) array.getArray());
  }
}
