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

  /** Maps one row, finding its columns by name (see {@link #specialize} for a whole result). */
  @Override
  public Job map(ResultSet rs, StatementContext ctx) throws SQLException {
    return new Columns(rs).job(rs);
  }

  /**
   * A mapper for every row of {@code rs}: its columns are looked up by name once, not once per
   * column of each row (Jdbi specializes a row mapper per result set).
   */
  @Override
  public RowMapper<Job> specialize(ResultSet rs, StatementContext ctx) throws SQLException {
    Columns columns = new Columns(rs);
    return (row, c) -> columns.job(row);
  }

  /**
   * Maps the rows of one result set inside a caller's own row mapper (which reads other columns
   * too), finding the columns once per result set.
   */
  static final class PerResult {
    private ResultSet seen;
    private Columns columns;

    Job map(ResultSet rs) throws SQLException {
      if (rs != seen) {
        columns = new Columns(rs);
        seen = rs;
      }
      return columns.job(rs);
    }
  }

  /** The positions of a {@code jobs} row's columns in one result set. */
  private static final class Columns {
    private final int id;
    private final int namespace;
    private final int type;
    private final int payload;
    private final int priority;
    private final int status;
    private final int runAt;
    private final int attempt;
    private final int maxAttempts;
    private final int backoff;
    private final int timeoutMs;
    private final int idempotencyKey;
    private final int tags;
    private final int callback;
    private final int result;
    private final int lastError;
    private final int workerId;
    private final int heartbeatAt;
    private final int startedAt;
    private final int finishedAt;
    private final int createdAt;
    private final int updatedAt;
    private final int parentId;
    private final int scheduleId;
    private final int workflowId;
    private final int runCondition;
    private final int occurrenceAt;
    private final int traceparent;

    Columns(ResultSet rs) throws SQLException {
      id = rs.findColumn("id");
      namespace = rs.findColumn("namespace");
      type = rs.findColumn("type");
      payload = rs.findColumn("payload");
      priority = rs.findColumn("priority");
      status = rs.findColumn("status");
      runAt = rs.findColumn("run_at");
      attempt = rs.findColumn("attempt");
      maxAttempts = rs.findColumn("max_attempts");
      backoff = rs.findColumn("backoff");
      timeoutMs = rs.findColumn("timeout_ms");
      idempotencyKey = rs.findColumn("idempotency_key");
      tags = rs.findColumn("tags");
      callback = rs.findColumn("callback");
      result = rs.findColumn("result");
      lastError = rs.findColumn("last_error");
      workerId = rs.findColumn("worker_id");
      heartbeatAt = rs.findColumn("heartbeat_at");
      startedAt = rs.findColumn("started_at");
      finishedAt = rs.findColumn("finished_at");
      createdAt = rs.findColumn("created_at");
      updatedAt = rs.findColumn("updated_at");
      parentId = rs.findColumn("parent_id");
      scheduleId = rs.findColumn("schedule_id");
      workflowId = rs.findColumn("workflow_id");
      runCondition = rs.findColumn("run_condition");
      occurrenceAt = rs.findColumn("occurrence_at");
      traceparent = rs.findColumn("traceparent");
    }

    Job job(ResultSet rs) throws SQLException {
      long timeout = rs.getLong(timeoutMs);
      Duration jobTimeout = rs.wasNull() ? null : Duration.ofMillis(timeout);
      return new Job(
          rs.getObject(id, UUID.class),
          rs.getString(namespace),
          rs.getString(type),
          Json.readTree(rs.getString(payload)),
          Priority.ofRank(rs.getShort(priority)),
          JobState.valueOf(rs.getString(status)),
          timestamptz(rs, runAt),
          rs.getInt(attempt),
          rs.getInt(maxAttempts),
          backoff(rs.getString(backoff)),
          jobTimeout,
          rs.getString(idempotencyKey),
          tags(rs.getArray(tags)),
          Json.readTree(rs.getString(callback)),
          Json.readTree(rs.getString(result)),
          rs.getString(lastError),
          rs.getString(workerId),
          timestamptz(rs, heartbeatAt),
          timestamptz(rs, startedAt),
          timestamptz(rs, finishedAt),
          timestamptz(rs, createdAt),
          timestamptz(rs, updatedAt),
          rs.getObject(parentId, UUID.class),
          rs.getObject(scheduleId, UUID.class),
          rs.getObject(workflowId, UUID.class),
          runCondition(rs.getString(runCondition)),
          timestamptz(rs, occurrenceAt),
          rs.getString(traceparent));
    }
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
    return timestamptz(rs, rs.findColumn(column));
  }

  private static Instant timestamptz(ResultSet rs, int column) throws SQLException {
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
