package io.punctual.common.store;

import io.punctual.common.job.Execution;
import io.punctual.common.job.ExecutionStatus;
import io.punctual.common.job.Job;
import io.punctual.common.job.JobId;
import io.punctual.common.job.JobState;
import io.punctual.common.job.RunCondition;
import io.punctual.common.job.Upstream;
import io.punctual.common.json.Json;
import io.punctual.common.queue.QueueEntry;
import io.punctual.common.sql.SqlFiles;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Every read of jobs: one job, a batch by id, a filtered page, a job's attempts and dependencies,
 * the stale running attempts the reaper looks at and the pending jobs the promoter moves to Redis.
 * Nothing here writes. The SQL is in {@code JobQueries/*.sql} beside this class.
 */
public final class JobQueries {
  private static final SqlFiles SQL = new SqlFiles(JobQueries.class);

  private final Jdbi jdbi;

  public JobQueries(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  public Optional<Job> find(String namespace, UUID id) {
    return jdbi.withHandle(h -> find(h, namespace, id));
  }

  static Optional<Job> find(Handle h, String namespace, UUID id) {
    return h.createQuery(sql("find"))
        .bind("id", id)
        .bind("scheduledAt", JobId.scheduledAt(id))
        .bind("namespace", namespace)
        .map(JobRowMapper.INSTANCE)
        .findOne();
  }

  /**
   * The dependencies ({@code dependsOn}: the edges other than the parent's) of the jobs {@code ids}
   * of {@code namespace}, each as a stored {@link Upstream} (the job waited for, and on what
   * condition), in the order of those jobs' ids; a job without any maps to an empty list. One
   * statement, for reads that show them.
   */
  public Map<UUID, List<Upstream>> dependsOn(String namespace, Collection<UUID> ids) {
    return jdbi.withHandle(h -> dependsOn(h, namespace, ids));
  }

  static Map<UUID, List<Upstream>> dependsOn(Handle h, String namespace, Collection<UUID> ids) {
    Map<UUID, List<Upstream>> out = new HashMap<>();
    for (UUID id : ids) {
      out.put(id, new ArrayList<>());
    }
    if (ids.isEmpty()) {
      return out;
    }
    h.createQuery(sql("dependsOn"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bind("namespace", namespace)
        .map(
            (rs, ctx) -> {
              out.get(rs.getObject("job_id", UUID.class))
                  .add(
                      Upstream.stored(
                          rs.getObject("depends_on_id", UUID.class),
                          RunCondition.parse(rs.getString("condition")).orElseThrow()));
              return null;
            })
        .list();
    return out;
  }

  /** Jobs by id, in any namespace (used by workers and the reaper, not by the API). */
  public List<Job> findMany(Collection<UUID> ids) {
    return jdbi.withHandle(h -> findMany(h, ids));
  }

  static List<Job> findMany(Handle h, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return h.createQuery(sql("findMany"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .map(JobRowMapper.INSTANCE)
        .list();
  }

  /** Filters for {@link #list}; null means "any". */
  public record JobQuery(
      String namespace,
      JobState status,
      String type,
      String tag,
      Instant from,
      Instant to,
      UUID cursor,
      int limit) {}

  /** A page of a list and the cursor for the next one (null at the end). */
  public record Page<T>(List<T> items, UUID nextCursor) {}

  /** Jobs newest-scheduled first, by keyset on the id. */
  public Page<Job> list(JobQuery q) {
    Instant from = q.from() == null ? Instant.EPOCH : q.from();
    Instant to = q.to() == null ? Instant.ofEpochMilli((1L << 48) - 1) : q.to();
    if (q.cursor() != null) {
      Instant cursorTime = JobId.scheduledAt(q.cursor()).plusMillis(1);
      if (cursorTime.isBefore(to)) {
        to = cursorTime;
      }
    }
    Instant fromBound = from;
    Instant toBound = to;
    List<Job> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(sql("list"))
                    .bind("namespace", q.namespace())
                    .bind("from", fromBound)
                    .bind("to", toBound)
                    .bind("status", q.status() == null ? null : q.status().name())
                    .bind("type", q.type())
                    .bind("tag", q.tag())
                    .bind("cursor", q.cursor())
                    .bind("limit", q.limit() + 1)
                    .map(JobRowMapper.INSTANCE)
                    .list());
    if (rows.size() > q.limit()) {
      List<Job> page = rows.subList(0, q.limit());
      return new Page<>(List.copyOf(page), page.get(page.size() - 1).id());
    }
    return new Page<>(rows, null);
  }

  public List<Execution> executions(String namespace, UUID id) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("executions"))
                .bind("id", id)
                .bind("scheduledAt", JobId.scheduledAt(id))
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) -> {
                      long duration = rs.getLong("duration_ms");
                      Long durationMs = rs.wasNull() ? null : duration;
                      return new Execution(
                          rs.getObject("job_id", UUID.class),
                          rs.getInt("attempt"),
                          rs.getString("worker_id"),
                          ExecutionStatus.valueOf(rs.getString("status")),
                          JobRowMapper.instant(rs, "started_at"),
                          JobRowMapper.instant(rs, "finished_at"),
                          durationMs,
                          rs.getString("error"),
                          rs.getString("stack_trace"),
                          Json.readTree(rs.getString("result")));
                    })
                .list());
  }

  /**
   * Running attempts whose worker has not reported in since {@code staleBefore}, oldest heartbeat
   * first (then by id), after the cursor {@code (afterHeartbeat, afterId)}: start with {@link
   * Instant#EPOCH} and the nil UUID, then pass the last job of the previous page.
   */
  public List<Job> staleRunning(
      Instant staleBefore, Instant afterHeartbeat, UUID afterId, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("staleRunning"))
                .bind("staleBefore", staleBefore)
                .bind("afterHeartbeat", afterHeartbeat)
                .bind("afterId", afterId)
                .bind("limit", limit)
                .map(JobRowMapper.INSTANCE)
                .list());
  }

  /**
   * Pending jobs with run_at in (after, until], ordered by (run_at, id), after a keyset cursor (the
   * promoter's {@link io.punctual.common.queue.PendingJobs}).
   */
  public List<QueueEntry> pendingDue(Instant afterRunAt, UUID afterId, Instant until, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("pendingDue"))
                .bind("afterRunAt", afterRunAt)
                .bind("afterId", afterId)
                .bind("until", until)
                .bind("limit", limit)
                .map(JobRowMapper::queueEntry)
                .list());
  }
}
