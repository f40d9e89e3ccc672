package io.punctual.schedule.store;

import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobLinks;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.schedule.Schedule;
import io.punctual.store.JobQueries;
import io.punctual.store.JobQueries.Page;
import io.punctual.store.JobRowMapper;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobTransitions;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of schedules: those a schedule creates (an occurrence the planner materialises, a run
 * triggered by hand), those a change of it takes back, and the page of them the API lists. Every
 * job a schedule writes goes through {@link #insert}, every one it takes back through {@link
 * #cancelFuture}; both run inside the caller's transaction. The SQL is in {@code
 * ScheduleJobs/*.sql} beside this class.
 */
public final class ScheduleJobs {
  private static final Logger log = LoggerFactory.getLogger(ScheduleJobs.class);
  private static final SqlFiles SQL = new SqlFiles(ScheduleJobs.class);

  private final Jdbi jdbi;
  private final JobSubmissions submissions;
  private final JobQueries queries;
  private final Clock clock;

  public ScheduleJobs(Jdbi jdbi, JobSubmissions submissions, JobQueries queries, Clock clock) {
    this.jdbi = jdbi;
    this.submissions = submissions;
    this.queries = queries;
    this.clock = clock;
  }

  /** Milliseconds are the precision of every stored time (job ids, Redis scores). */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /**
   * What cancelling a schedule's future jobs did: the jobs cancelled (to take out of Redis) and the
   * jobs that waited for those and became PENDING (to put into Redis).
   */
  public record Cancellation(List<QueueEntry> cancelled, List<QueueEntry> released) {
    public static final Cancellation NONE = new Cancellation(List.of(), List.of());
  }

  /**
   * The id of a job a schedule is about to insert, its day's partition created first: call it
   * before the transaction (partition DDL never runs inside one).
   */
  public UUID newId(NewJob job, Instant now) {
    return submissions.newId(job, now);
  }

  /**
   * Inserts a schedule's jobs with the ids chosen by {@link #newId}, in the caller's transaction.
   */
  public void insert(Handle h, List<NewJob> newJobs, List<UUID> ids, Instant now) {
    submissions.insertPending(h, newJobs, ids, now);
  }

  /**
   * CANCEL_PENDING for the schedule's jobs not started and due after {@code now} (a change, a pause
   * or a deletion of the schedule), forgetting their occurrences so that they can be planned again,
   * and, in the same transaction, the judgement of any job that waited for one of them (like every
   * step that ends jobs). The caller removes the cancelled entries from Redis after the commit.
   */
  public Cancellation cancelFuture(Handle h, UUID scheduleId, Instant now, String why) {
    JobTransitions.CancelledFutureJobs done =
        JobTransitions.cancelScheduleFutureJobs(h, scheduleId, "cancelled: " + why, now);
    List<Long> fireMs = new ArrayList<>();
    List<UUID> ids = new ArrayList<>();
    for (JobTransitions.CancelledFutureJob c : done.cancelled()) {
      if (c.occurrenceAt() != null) {
        fireMs.add(c.occurrenceAt().toEpochMilli());
        ids.add(c.entry().id());
      }
    }
    if (!ids.isEmpty()) {
      h.createUpdate(SQL.get("forgetOccurrences"))
          .bind("scheduleId", scheduleId)
          .bind("fireMs", fireMs.toArray(Long[]::new))
          .bind("jobIds", ids.toArray(UUID[]::new))
          .execute();
    }
    if (done.cancelled().isEmpty()) {
      return Cancellation.NONE;
    }
    return new Cancellation(done.entries(), done.released());
  }

  /**
   * One run of the schedule now, whatever its status, outside its fire times (no occurrence).
   * Overlap {@code skip} counts it as the schedule's latest run. Empty when there is no such
   * schedule.
   */
  public Optional<Job> trigger(String namespace, UUID id) {
    Instant seen = now();
    Optional<Schedule> before = jdbi.withHandle(h -> ScheduleRows.find(h, namespace, id, seen));
    if (before.isEmpty()) {
      return Optional.empty();
    }
    Instant now = now();
    JobLinks links = JobLinks.NONE.withScheduleId(id);
    // The id (and its partition) before the transaction: partition DDL never runs inside one.
    UUID jobId = newId(before.get().definition().job().toNewJob(namespace, now, links), now);
    Optional<UUID> created =
        jdbi.inTransaction(
            h ->
                ScheduleRows.lock(h, namespace, id)
                    .map(
                        s -> {
                          NewJob job = s.definition().job().toNewJob(namespace, now, links);
                          insert(h, List.of(job), List.of(jobId), now);
                          h.createUpdate(SQL.get("recordTrigger"))
                              .bind("id", id)
                              .bind("jobId", jobId)
                              .execute();
                          return jobId;
                        }));
    created.ifPresent(
        j -> log.info("schedule triggered schedule={} namespace={} job={}", id, namespace, j));
    return created.flatMap(j -> queries.find(namespace, j));
  }

  /** A page of a schedule's jobs, newest scheduled first (the shape of {@code GET /jobs}). */
  public Page<Job> page(
      String namespace, UUID scheduleId, JobState status, UUID cursor, int limit) {
    List<Job> rows =
        jdbi.withHandle(
            h ->
                h.createQuery(SQL.get("jobs"))
                    .bind("scheduleId", scheduleId)
                    .bind("namespace", namespace)
                    .bind("status", status == null ? null : status.name())
                    .bind("cursor", cursor)
                    .bind("cursorTime", cursor == null ? null : JobId.scheduledAt(cursor))
                    .bind("limit", limit + 1)
                    .map(new JobRowMapper())
                    .list());
    if (rows.size() > limit) {
      List<Job> page = List.copyOf(rows.subList(0, limit));
      return new Page<>(page, page.get(limit - 1).id());
    }
    return new Page<>(rows, null);
  }
}
