package io.punctual.schedule.store;

import io.punctual.common.json.Json;
import io.punctual.schedule.JobTemplate;
import io.punctual.schedule.ScheduleDefinition;
import io.punctual.schedule.ScheduleNameTakenException;
import io.punctual.schedule.expression.WireNames;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.postgresql.util.PSQLException;

/**
 * A definition as the columns of {@code schedules} (bound by name, as insert.sql, redefine.sql and
 * sameDefinition.sql use them), and the unique name of a schedule per namespace.
 */
final class DefinitionColumns {
  private DefinitionColumns() {}

  static <S extends SqlStatement<S>> S bind(S statement, ScheduleDefinition d) {
    JobTemplate job = d.job();
    return statement
        .bind("name", d.name())
        .bind("initIdentifier", d.initIdentifier())
        .bind("cron", d.cron())
        .bind("everyMs", d.every() == null ? null : d.every().toMillis())
        .bind("timeZone", d.zone().getId())
        .bind("dstGap", WireNames.of(d.dst().gap()))
        .bind("dstOverlap", WireNames.of(d.dst().overlap()))
        .bind("startAt", d.startAt())
        .bind("endAt", d.endAt())
        .bind("misfire", WireNames.of(d.misfire()))
        .bind("overlap", WireNames.of(d.overlap()))
        .bind("type", job.type())
        .bind("payload", Json.write(job.payload()))
        .bind("priority", (short) job.priority().rank())
        .bind("maxAttempts", job.maxAttempts())
        .bind("backoff", Json.write(job.backoff()))
        .bind("timeoutMs", job.timeout() == null ? null : job.timeout().toMillis())
        .bind("tags", job.tags().toArray(String[]::new))
        .bind("callback", job.callback() == null ? null : Json.write(job.callback()));
  }

  interface Work<T> {
    T run();
  }

  /** Runs {@code work}, turning a violation of the per-namespace name uniqueness into its error. */
  static <T> T translateNameTaken(String namespace, String name, Work<T> work) {
    try {
      return work.run();
    } catch (UnableToExecuteStatementException e) {
      if (e.getCause() instanceof PSQLException p
          && p.getServerErrorMessage() != null
          && "schedules_name_key".equals(p.getServerErrorMessage().getConstraint())) {
        throw new ScheduleNameTakenException(namespace, name);
      }
      throw e;
    }
  }
}
