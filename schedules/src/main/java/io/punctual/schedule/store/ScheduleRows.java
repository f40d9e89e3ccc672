package io.punctual.schedule.store;

import io.punctual.schedule.Schedule;
import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/** One schedule of a namespace, read or locked inside the caller's handle. */
final class ScheduleRows {
  private static final SqlFiles SQL = new SqlFiles(ScheduleRows.class);

  private ScheduleRows() {}

  /** The schedule with the latest fire time that had come by {@code now} and became a job. */
  static Optional<Schedule> find(Handle h, String namespace, UUID id, Instant now) {
    return h.createQuery(SQL.get("find"))
        .bind("id", id)
        .bind("namespace", namespace)
        .bind("now", now)
        .map(ScheduleRowMapper.WITH_LAST_FIRED)
        .findOne();
  }

  /** The schedule, locked for the rest of the transaction. */
  static Optional<Schedule> lock(Handle h, String namespace, UUID id) {
    return h.createQuery(SQL.get("lock"))
        .bind("id", id)
        .bind("namespace", namespace)
        .map(ScheduleRowMapper.PLAIN)
        .findOne();
  }
}
