package io.punctual.schedule.store;

import io.punctual.common.json.Json;
import io.punctual.model.Backoff;
import io.punctual.model.Priority;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.MisfirePolicy;
import io.punctual.schedule.OverlapPolicy;
import io.punctual.schedule.Schedule;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleStatus;
import io.punctual.schedule.expression.DstPolicy;
import io.punctual.schedule.expression.WireNames;
import io.punctual.store.sql.Columns;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * Maps a {@code schedules} row to {@link Schedule}. Reads made for the API also select {@code
 * last_fired_at} (see ScheduleRows/find.sql); the planner's do not.
 */
public final class ScheduleRowMapper implements RowMapper<Schedule> {
  /** The row as stored (what the planner reads). */
  public static final ScheduleRowMapper PLAIN = new ScheduleRowMapper(false);

  /** The row with {@code last_fired_at} selected beside it (what the API reads). */
  public static final ScheduleRowMapper WITH_LAST_FIRED = new ScheduleRowMapper(true);

  private final boolean withLastFired;

  private ScheduleRowMapper(boolean withLastFired) {
    this.withLastFired = withLastFired;
  }

  @Override
  public Schedule map(ResultSet rs, StatementContext ctx) throws SQLException {
    long everyMs = rs.getLong("every_ms");
    Duration every = rs.wasNull() ? null : Duration.ofMillis(everyMs);
    long timeoutMs = rs.getLong("timeout_ms");
    Duration timeout = rs.wasNull() ? null : Duration.ofMillis(timeoutMs);
    JobTemplate job =
        new JobTemplate(
            rs.getString("type"),
            Json.readTree(rs.getString("payload")),
            Priority.ofRank(rs.getShort("priority")),
            rs.getInt("max_attempts"),
            backoff(rs.getString("backoff")),
            timeout,
            tags(rs.getArray("tags")),
            Json.readTree(rs.getString("callback")));
    ScheduleDefinition definition =
        new ScheduleDefinition(
            rs.getString("name"),
            rs.getString("init_identifier"),
            rs.getString("cron"),
            every,
            ZoneId.of(rs.getString("time_zone")),
            new DstPolicy(
                WireNames.parse(DstPolicy.Gap.class, rs.getString("dst_gap")).orElseThrow(),
                WireNames.parse(DstPolicy.Overlap.class, rs.getString("dst_overlap"))
                    .orElseThrow()),
            Columns.instant(rs, "start_at"),
            Columns.instant(rs, "end_at"),
            WireNames.parse(MisfirePolicy.class, rs.getString("misfire")).orElseThrow(),
            WireNames.parse(OverlapPolicy.class, rs.getString("overlap")).orElseThrow(),
            job);
    return new Schedule(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        definition,
        ScheduleStatus.valueOf(rs.getString("status")),
        Columns.instant(rs, "next_fire_at"),
        Columns.instant(rs, "plan_at"),
        Columns.instant(rs, "last_fire_at"),
        rs.getObject("last_job_id", UUID.class),
        Columns.instant(rs, "created_at"),
        Columns.instant(rs, "updated_at"),
        withLastFired ? Columns.instant(rs, "last_fired_at") : null);
  }

  /** Schedules share a handful of backoff policies: parse each once (immutable, bounded). */
  private static final Map<String, Backoff> BACKOFFS = new ConcurrentHashMap<>();

  private static Backoff backoff(String json) {
    Backoff cached = BACKOFFS.get(json);
    if (cached == null) {
      cached = Json.read(json, Backoff.class);
      if (BACKOFFS.size() < 1_024) {
        BACKOFFS.put(json, cached);
      }
    }
    return cached;
  }

  private static List<String> tags(Array array) throws SQLException {
    return array == null ? List.of() : Arrays.asList((String[]) array.getArray());
  }
}
