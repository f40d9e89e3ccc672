package io.punctual.store;

import io.punctual.common.json.Json;
import io.punctual.model.Execution;
import io.punctual.model.ExecutionStatus;
import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.QueueEntry;
import io.punctual.model.RunCondition;
import io.punctual.model.Upstream;
import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
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

  static String sql(String name) {
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

  /**
   * The jobs job {@code id} of {@code namespace} waits for (parent and dependencies) that have not
   * ended, with their current state, in id order.
   */
  public Map<UUID, JobState> waitingFor(String namespace, UUID id) {
    Map<UUID, JobState> out = new java.util.LinkedHashMap<>();
    jdbi.useHandle(
        h ->
            h.createQuery(sql("waitingFor"))
                .bind("id", id)
                .bind("namespace", namespace)
                .map(
                    (rs, ctx) ->
                        out.put(
                            rs.getObject("id", UUID.class),
                            JobState.valueOf(rs.getString("status"))))
                .list());
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

  /**
   * Filters for {@link #list}; null means "any". {@code idempotencyKey}: the job stored under that
   * key; {@code payload}: JSON text the job's payload must contain.
   */
  public record JobQuery(
      String namespace,
      JobState status,
      String type,
      String tag,
      Instant from,
      Instant to,
      UUID cursor,
      int limit,
      String idempotencyKey,
      String payload) {
    public JobQuery(
        String namespace,
        JobState status,
        String type,
        String tag,
        Instant from,
        Instant to,
        UUID cursor,
        int limit) {
      this(namespace, status, type, tag, from, to, cursor, limit, null, null);
    }

    public JobFilter filter() {
      return new JobFilter(namespace, status, type, tag, from, to, idempotencyKey, payload);
    }
  }

  /** A page of a list and the cursor for the next one (null at the end). */
  public record Page<T>(List<T> items, UUID nextCursor) {}

  /** Jobs newest-scheduled first, by keyset on the id. */
  public Page<Job> list(JobQuery q) {
    JobFilter filter = q.filter();
    Instant to = filter.toOrLatest();
    if (q.cursor() != null) {
      Instant cursorTime = JobId.scheduledAt(q.cursor()).plusMillis(1);
      if (cursorTime.isBefore(to)) {
        to = cursorTime;
      }
    }
    Instant toBound = to;
    List<Job> rows =
        jdbi.withHandle(
            h ->
                filter
                    .bind(
                        h.createQuery(filter.expand(sql("list"))), filter.fromOrEarliest(), toBound)
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

  /**
   * The children of job {@code parentId} of {@code namespace} (the jobs whose parent it is:
   * workflow steps under it, follow-ups its handler spawned), oldest scheduled first, by keyset on
   * the id after {@code cursor} (null: from the first).
   */
  public Page<Job> children(String namespace, UUID parentId, UUID cursor, int limit) {
    Instant from = cursor == null ? Instant.EPOCH : JobId.scheduledAt(cursor);
    List<Job> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(sql("children"))
                    .bind("parentId", parentId)
                    .bind("namespace", namespace)
                    .bind("from", from)
                    .bind("cursor", cursor)
                    .bind("limit", limit + 1)
                    .map(JobRowMapper.INSTANCE)
                    .list());
    if (rows.size() > limit) {
      List<Job> page = rows.subList(0, limit);
      return new Page<>(List.copyOf(page), page.get(page.size() - 1).id());
    }
    return new Page<>(rows, null);
  }

  /** How many jobs {@code filter} matches. */
  public long count(JobFilter filter) {
    return jdbi.withHandle(
        h ->
            filter
                .bind(
                    h.createQuery(filter.expand(sql("count"))),
                    filter.fromOrEarliest(),
                    filter.toOrLatest())
                .mapTo(Long.class)
                .one());
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
                          Columns.instant(rs, "started_at"),
                          Columns.instant(rs, "finished_at"),
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
   * Up to {@code limit} running attempts of the workers {@code workerIds}, oldest heartbeat first.
   */
  public List<Job> runningOf(Collection<String> workerIds, int limit) {
    return jdbi.withHandle(
        h ->
            h.createQuery(sql("runningOf"))
                .bind("workerIds", workerIds.toArray(String[]::new))
                .bind("limit", limit)
                .map(JobRowMapper.INSTANCE)
                .list());
  }

  /**
   * Pending jobs with run_at in (after, until], ordered by (run_at, id), after a keyset cursor (the
   * promoter's {@link io.punctual.queue.PendingJobs}).
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
