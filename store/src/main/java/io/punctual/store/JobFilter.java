package io.punctual.store;

import io.punctual.model.JobState;
import java.time.Instant;
import org.jdbi.v3.core.statement.SqlStatement;

/**
 * What {@code GET /api/v1/jobs} filters on, without the page: the namespace, a scheduled-time range
 * and optional status, type, tag, idempotency key and payload (JSON text the payload must contain).
 * Null means "any". Shared by the list, the count of a bulk action's dry run and the jobs a bulk
 * action takes.
 */
public record JobFilter(
    String namespace,
    JobState status,
    String type,
    String tag,
    Instant from,
    Instant to,
    String idempotencyKey,
    String payload) {

  /** The latest scheduled time a job id can hold (48 bits of milliseconds). */
  static final Instant LATEST = Instant.ofEpochMilli((1L << 48) - 1);

  /** Only the namespace: every job of it. */
  public static JobFilter all(String namespace) {
    return new JobFilter(namespace, null, null, null, null, null, null, null);
  }

  public Instant fromOrEarliest() {
    return from == null ? Instant.EPOCH : from;
  }

  public Instant toOrLatest() {
    return to == null ? LATEST : to;
  }

  /**
   * {@code sql} with its {@code /*more*}{@code /} marker replaced by the optional conditions this
   * filter uses (each combination is then a statement of its own, planned for its index).
   */
  public String expand(String sql) {
    StringBuilder more = new StringBuilder("\n");
    if (tag != null) {
      more.append(JobQueries.sql("byTag")).append('\n');
    }
    if (idempotencyKey != null) {
      more.append(JobQueries.sql("byIdempotencyKey")).append('\n');
    }
    if (payload != null) {
      more.append(JobQueries.sql("byPayload")).append('\n');
    }
    return sql.replace("/*more*/", more.toString());
  }

  /** Binds every parameter of the filter (those of conditions not used are left unbound). */
  public <S extends SqlStatement<S>> S bind(S statement, Instant from, Instant to) {
    S s =
        statement
            .bind("namespace", namespace)
            .bind("from", from)
            .bind("to", to)
            .bind("status", status == null ? null : status.name())
            .bind("type", type)
            .bind("tag", tag);
    if (idempotencyKey != null) {
      s = s.bind("idempotencyKey", idempotencyKey);
    }
    if (payload != null) {
      s = s.bind("payload", payload);
    }
    return s;
  }
}
