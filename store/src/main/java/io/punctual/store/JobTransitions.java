package io.punctual.store;

import io.punctual.common.json.Json;
import io.punctual.model.Completion;
import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.JobState.Transition;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.store.alert.AlertEvent;
import io.punctual.store.alert.AlertOutbox;
import io.punctual.store.limit.ClaimOutcome;
import io.punctual.store.limit.SlotKey;
import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * The named transitions of {@link JobState.Transition}: every write of a job's status goes through
 * this class, each one guarded SQL statement (in {@code JobTransitions/*.sql} beside it) whose
 * source and target states are literals, fenced by the current status (and, for a running job, by
 * the attempt number). A statement that serves several transitions of a batch (a worker's results:
 * SUCCEED, RETRY and FAIL) holds one guarded UPDATE per target, so a batch stays one round trip.
 * The header of each file names its transitions; {@code TransitionSqlTest} checks every status
 * write of every module against the table.
 *
 * <p>The steps that end jobs judge, in the same transaction, the jobs waiting for them ({@link
 * DependencyResolver}): {@link Ended#released()} holds those that became PENDING.
 */
public final class JobTransitions {
  private static final SqlFiles SQL = new SqlFiles(JobTransitions.class);
  private static final DependencyResolver DEPENDENCIES = new DependencyResolver();

  private final Jdbi jdbi;
  private final Clock clock;
  private final Finishing finishing;
  private final AlertOutbox alerts;

  public JobTransitions(Jdbi jdbi, JobSubmissions submissions, Clock clock) {
    this.jdbi = jdbi;
    this.clock = clock;
    this.alerts = new AlertOutbox(jdbi, clock);
    this.finishing = new Finishing(jdbi, submissions, clock, alerts);
  }

  /** The alert outbox the finish and rescue steps write to (its cache of watched kinds). */
  public AlertOutbox alerts() {
    return alerts;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /**
   * Runs a statement that works on a batch of job keys (claim, heartbeat, finish) in a transaction
   * whose planner may neither scan a partition sequentially nor loop over one side of a join once
   * per row of the other: until a busy partition has been analyzed its guesses can make a batch
   * cost O(partition) or O(batch x running jobs) instead of O(batch) (keyLookupsOnly.sql).
   */
  static <T> T byKeys(Jdbi jdbi, HandleCallback<T, RuntimeException> statement) {
    return jdbi.inTransaction(
        h -> {
          h.createQuery(sql("keyLookupsOnly")).mapTo(String.class).one();
          return statement.withHandle(h);
        });
  }

  // --- CLAIM

  /**
   * {@link Transition#CLAIM}: confirms claims made in Redis; each job still PENDING becomes RUNNING
   * with attempt + 1. Returns the jobs this worker now runs (those the limits refused are left
   * PENDING and out of the answer: see {@link #claimJudged}).
   */
  public List<Job> claim(Collection<UUID> ids, String workerId) {
    return claimJudged(ids, workerId).claimed();
  }

  /**
   * {@link #claim}, with the verdicts of the limits (V14): the slot each limited job took with its
   * claim, and the jobs refused (paused type, no free slot, a later start), which stay PENDING and
   * are the caller's to put where they wait.
   */
  public ClaimOutcome claimJudged(Collection<UUID> ids, String workerId) {
    return claimJudged(ids, workerId, null);
  }

  /**
   * {@link #claimJudged(Collection, String)}, taking the slots lock of {@code cappedNamespace}
   * first, a namespace with a running cap (V27; null: none): the claim waits for other claims of
   * that namespace, so that they never pick the same free slot of it. Jobs of a capped namespace
   * other than {@code cappedNamespace} are refused ({@code NAMESPACE_FULL}): ask again naming it.
   */
  public ClaimOutcome claimJudged(Collection<UUID> ids, String workerId, String cappedNamespace) {
    return claimJudged(null, ids, workerId, cappedNamespace);
  }

  /**
   * {@link #claimJudged(Collection, String, String)} for jobs all of one {@code namespace} (a
   * worker's claim from that namespace's queue; null: not known). While that namespace has no
   * limit, no paused type and no running cap, the claim is one plain UPDATE ({@link #claimPlain});
   * otherwise, or with {@code cappedNamespace}, the statement that judges them (claim.sql), in the
   * same transaction.
   */
  public ClaimOutcome claimJudged(
      String namespace, Collection<UUID> ids, String workerId, String cappedNamespace) {
    return claimJudged(namespace, ids, workerId, cappedNamespace, false);
  }

  /**
   * {@link #claimJudged(String, Collection, String, String)}; with {@code readOnly}, a batch of a
   * plain namespace is read, not written (peekPlain.sql): the outcome says {@link
   * ClaimOutcome#unwritten()}, and the caller, holding the jobs' leases, writes each claim later
   * ({@link #writeClaims}) or ends the attempt with its claim ({@link #finish(List, String, Set)}).
   * A batch claim.sql judges is written as always.
   */
  public ClaimOutcome claimJudged(
      String namespace,
      Collection<UUID> ids,
      String workerId,
      String cappedNamespace,
      boolean readOnly) {
    if (ids.isEmpty()) {
      return new ClaimOutcome(List.of(), Map.of(), List.of());
    }
    Instant now = clock.instant();
    List<Job> claimed = new ArrayList<>(ids.size());
    Map<UUID, SlotKey> slots = new HashMap<>();
    List<ClaimOutcome.Refusal> refused = new ArrayList<>();
    boolean[] plain = {false};
    byKeys(
        jdbi,
        h -> {
          if (namespace != null
              && cappedNamespace == null
              && claimPlain(h, namespace, ids, workerId, now, claimed, readOnly)) {
            plain[0] = true;
            return List.of();
          }
          if (cappedNamespace != null) {
            h.createQuery(sql("lockNamespaceSlots"))
                .bind("namespace", cappedNamespace)
                .mapTo(String.class)
                .one();
          }
          JobRowMapper.PerResult rows = new JobRowMapper.PerResult();
          return h.createQuery(sql("claim"))
              .bind("ids", ids.toArray(UUID[]::new))
              .bindMap(UnnestColumns.scheduledBounds(ids))
              .bind("workerId", workerId)
              .bind("now", now)
              .bind("nowMs", now.toEpochMilli())
              .bind("cappedNamespace", cappedNamespace)
              .map(
                  (rs, ctx) -> {
                    Job job = rows.map(rs);
                    String verdict = rs.getString("verdict");
                    String key = rs.getString("limit_key");
                    int concurrency = rs.getInt("limit_concurrency");
                    Integer limit = rs.wasNull() ? null : concurrency;
                    if (verdict.equals("CLAIMED")) {
                      claimed.add(job);
                      if (limit != null) {
                        slots.put(job.id(), new SlotKey(job.namespace(), job.type(), key, limit));
                      }
                    } else {
                      long next = rs.getLong("next_ms");
                      refused.add(
                          new ClaimOutcome.Refusal(
                              job,
                              ClaimOutcome.Reason.valueOf(verdict),
                              key,
                              limit,
                              rs.wasNull() ? null : Instant.ofEpochMilli(next)));
                    }
                    return verdict;
                  })
              .list();
        });
    return new ClaimOutcome(claimed, slots, refused, plain[0] && readOnly);
  }

  /**
   * {@link Transition#CLAIM} of a batch of one namespace that has no limit, no paused type and no
   * running cap (claimPlain.sql), inside the caller's transaction: adds the jobs claimed to {@code
   * claimed} and returns true; returns false, having claimed nothing, when the namespace has one of
   * those (the batch is then for claim.sql).
   */
  static boolean claimPlain(
      Handle h,
      String namespace,
      Collection<UUID> ids,
      String workerId,
      Instant now,
      List<Job> claimed,
      boolean readOnly) {
    boolean[] judge = {false};
    JobRowMapper.PerResult rows = new JobRowMapper.PerResult();
    h.createQuery(sql(readOnly ? "peekPlain" : "claimPlain"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .bind("namespace", namespace)
        .bind("workerId", workerId)
        .bind("now", now)
        .map(
            (rs, ctx) -> {
              String verdict = rs.getString("verdict");
              if (verdict.equals("CLAIMED")) {
                Job row = rows.map(rs);
                claimed.add(readOnly ? asClaimed(row, workerId, now) : row);
              } else {
                judge[0] = true;
              }
              return verdict;
            })
        .list();
    return !judge[0];
  }

  /**
   * A PENDING row read by a claim, as claimPlain.sql would have written it: RUNNING with the next
   * attempt, {@code workerId}'s, started at the later of now and its run_at.
   */
  private static Job asClaimed(Job j, String workerId, Instant now) {
    Instant started = j.runAt() != null && j.runAt().isAfter(now) ? j.runAt() : now;
    return new Job(
        j.id(),
        j.namespace(),
        j.type(),
        j.payload(),
        j.priority(),
        JobState.RUNNING,
        j.runAt(),
        j.attempt() + 1,
        j.maxAttempts(),
        j.backoff(),
        j.timeout(),
        j.idempotencyKey(),
        j.tags(),
        j.callback(),
        j.result(),
        j.lastError(),
        workerId,
        now,
        started,
        j.finishedAt(),
        j.createdAt(),
        now,
        j.parentId(),
        j.scheduleId(),
        j.workflowId(),
        j.runCondition(),
        j.occurrenceAt(),
        j.traceparent());
  }

  /** A running attempt a worker holds. */
  public record Attempt(UUID jobId, int attempt) {}

  /** An attempt held with its claim unwritten, and when its handler started (or starts). */
  public record UnwrittenClaim(UUID jobId, int attempt, Instant startedAt) {}

  /**
   * {@link Transition#CLAIM} written late (writeClaims.sql): the claims {@code workerId} read
   * without writing them, for attempts that outlived {@code worker.claimWriteAfter}. Returns the
   * ids written (or found written by this worker with that attempt); a job missing from the answer
   * was cancelled, or its attempt rescued: its handler must stop.
   */
  public Set<UUID> writeClaims(Collection<UnwrittenClaim> claims, String workerId) {
    if (claims.isEmpty()) {
      return Set.of();
    }
    Instant now = clock.instant();
    return byKeys(
        jdbi,
        h ->
            new HashSet<>(
                UnnestColumns.of(List.copyOf(claims))
                    .jobKeys(UnwrittenClaim::jobId)
                    .ints("attempts", UnwrittenClaim::attempt)
                    .millis("startedMs", UnwrittenClaim::startedAt)
                    .bind(h.createQuery(sql("writeClaims")))
                    .bind("workerId", workerId)
                    .bind("now", now)
                    .mapTo(UUID.class)
                    .list()));
  }

  /**
   * Records heartbeats (no transition: the status stays RUNNING); returns the attempts that are
   * still current (others must stop).
   */
  public Set<UUID> heartbeat(Collection<Attempt> running) {
    if (running.isEmpty()) {
      return Set.of();
    }
    Instant now = clock.instant();
    return byKeys(
        jdbi,
        h ->
            new HashSet<>(
                UnnestColumns.of(List.copyOf(running))
                    .jobKeys(Attempt::jobId)
                    .ints("attempts", Attempt::attempt)
                    .bind(h.createQuery(sql("heartbeat")))
                    .bind("now", now)
                    .mapTo(UUID.class)
                    .list()));
  }

  // --- SUCCEED, RETRY, FAIL

  /**
   * What a step that ends jobs changed: the ids it applied to, and the jobs that were waiting for
   * them and became PENDING in the same transaction (the caller puts those due soon into Redis).
   * {@code refused}: for a finish, the applied completions recorded as FAILED instead of SUCCEEDED
   * because the follow-up jobs they spawned were refused, with the error recorded.
   */
  public record Ended(Set<UUID> applied, List<QueueEntry> released, Map<UUID, String> refused) {
    public static final Ended NONE = new Ended(Set.of(), List.of());

    public Ended {
      refused = Map.copyOf(refused);
    }

    public Ended(Set<UUID> applied, List<QueueEntry> released) {
      this(applied, released, Map.of());
    }
  }

  /** What the error of an attempt whose follow-ups were refused starts with. */
  public static final String FOLLOW_UPS_REFUSED = "follow-up jobs refused: ";

  /** {@link #finish(List, String)} recording the job row's worker as each attempt's worker. */
  public Ended finish(List<Completion> completions) {
    return finish(completions, null);
  }

  /**
   * {@link Transition#SUCCEED}, {@link Transition#RETRY} and {@link Transition#FAIL} for finished
   * attempts, with the follow-up jobs of the successes, each attempt recorded in {@code
   * job_executions}; {@link Ended#applied()} holds the ids whose job row took the new state. A
   * completion whose attempt is no longer current (the job was cancelled, rescued or re-run) is
   * refused, but its attempt is still recorded. See {@link Finishing} for the follow-ups and how a
   * refusal of them fails only the attempt at fault.
   *
   * @param workerId the worker that ran these attempts (null: the worker on the job row)
   */
  public Ended finish(List<Completion> completions, String workerId) {
    return finishing.finish(completions, workerId, Set.of());
  }

  /**
   * {@link #finish(List, String)}, where the attempts of the jobs {@code unwritten} hold claims
   * that were never written ({@link ClaimOutcome#unwritten()}): their rows are still PENDING with
   * the attempt before, and each one's claim and end are written together ({@link
   * Transition#SUCCEED_UNWRITTEN}, {@link Transition#RETRY_UNWRITTEN}, {@link
   * Transition#FAIL_UNWRITTEN}). The caller must not write those claims meanwhile.
   */
  public Ended finish(List<Completion> completions, String workerId, Set<UUID> unwritten) {
    return finishing.finish(completions, workerId, unwritten);
  }

  /**
   * The statement of {@link #finish}: one guarded UPDATE per target state, and the execution rows.
   * Returns the ids whose job row changed. A completion whose next state is CANCELLED (a handler
   * stopped because its heartbeat found the attempt no longer current) is in none of the three
   * groups: its job is already out of RUNNING with that attempt, which no statement could pass, and
   * only its execution row is written.
   */
  static Set<UUID> succeedRetryOrFail(
      Handle h, List<Completion> completions, String workerId, Instant now, Set<UUID> unwritten) {
    Set<FinishStatement.Group> groups = FinishStatement.groupsOf(completions, unwritten);
    UnnestColumns<Completion> columns = UnnestColumns.of(completions).jobKeys(Completion::jobId);
    for (FinishStatement.Group g : groups) {
      columns.idsWhere(g.idsParameter, Completion::jobId, c -> g.has(c, unwritten));
    }
    return new HashSet<>(
        columns
            .ints("attempts", Completion::attempt)
            .millis("nextRunAtMs", Completion::nextRunAt)
            .texts("execStatuses", c -> c.executionStatus().name())
            .millis("finishedAtMs", Completion::finishedAt)
            .longs("durationsMs", Completion::durationMs)
            .texts("errors", Completion::error)
            .texts("stackTraces", Completion::stackTrace)
            .texts("results", c -> c.result() == null ? null : Json.write(c.result()))
            .bind(h.createQuery(FinishStatement.sql(groups)))
            .bind("workerId", workerId)
            .bind("now", now)
            .mapTo(UUID.class)
            .list());
  }

  // --- CANCEL_BLOCKED, CANCEL_PENDING, CANCEL_RUNNING

  /** The result of a cancel request. */
  public sealed interface CancelResult {
    /** Cancelled now; {@code released}: jobs waiting for it that became PENDING. */
    record Cancelled(Job job, JobState previous, List<QueueEntry> released)
        implements CancelResult {}

    record AlreadyFinal(Job job) implements CancelResult {}

    record NotFound() implements CancelResult {}
  }

  /**
   * {@link Transition#CANCEL_BLOCKED}, {@link Transition#CANCEL_PENDING} or {@link
   * Transition#CANCEL_RUNNING} (a running attempt learns it at its next heartbeat), and the jobs
   * waiting for it are judged in the same transaction.
   */
  public CancelResult cancel(String namespace, UUID id) {
    Instant now = clock.instant();
    return DeadlockRetry.run(
        "cancel", () -> jdbi.inTransaction(h -> cancelIn(h, namespace, id, now)));
  }

  /**
   * {@link #cancel}, inside the caller's transaction {@code h} (a bulk action records its progress
   * in the same one, so a batch is acted on and counted once, or not at all).
   */
  public static CancelResult cancelIn(Handle h, String namespace, UUID id, Instant now) {
    Optional<Job> before = JobQueries.find(h, namespace, id);
    if (before.isEmpty()) {
      return new CancelResult.NotFound();
    }
    Optional<Job> cancelled =
        h.createQuery(sql("cancel"))
            .bind("id", id)
            .bind("scheduledAt", JobId.scheduledAt(id))
            .bind("namespace", namespace)
            .bind("now", now)
            .map(JobRowMapper.INSTANCE)
            .findOne();
    if (cancelled.isPresent()) {
      return new CancelResult.Cancelled(
          cancelled.get(), before.get().status(), DEPENDENCIES.afterEnded(h, List.of(id), now));
    }
    return new CancelResult.AlreadyFinal(JobQueries.find(h, namespace, id).orElseThrow());
  }

  /**
   * The cancel transitions for every step of workflow {@code workflowId} not final yet, inside the
   * caller's transaction; returns the steps cancelled (to take out of Redis). The caller judges the
   * jobs waiting for them.
   */
  static List<QueueEntry> cancelWorkflowSteps(Handle h, UUID workflowId, Instant now) {
    return h.createQuery(sql("cancelWorkflowSteps"))
        .bind("id", workflowId)
        .bind("now", now)
        .map(
            (rs, ctx) ->
                new QueueEntry(
                    rs.getObject("id", UUID.class),
                    rs.getString("namespace"),
                    Priority.ofRank(rs.getShort("priority")),
                    now))
        .list();
  }

  /**
   * A job {@link #cancelScheduleFutureJobs} cancelled, and the occurrence it stood for (or null).
   */
  public record CancelledFutureJob(QueueEntry entry, Instant occurrenceAt) {}

  /** What {@link #cancelScheduleFutureJobs} cancelled, and the jobs it released. */
  public record CancelledFutureJobs(List<CancelledFutureJob> cancelled, List<QueueEntry> released) {
    public List<QueueEntry> entries() {
      return cancelled.stream().map(CancelledFutureJob::entry).toList();
    }
  }

  /**
   * {@link Transition#CANCEL_PENDING} for the jobs of schedule {@code scheduleId} that have not
   * started and are due after {@code now} (what a change, a pause or a deletion of the schedule
   * takes back), inside the caller's transaction, with {@code reason} as their error; then, like
   * every step that ends jobs, the judgement of the jobs waiting for them.
   */
  public static CancelledFutureJobs cancelScheduleFutureJobs(
      Handle h, UUID scheduleId, String reason, Instant now) {
    List<CancelledFutureJob> cancelled =
        h.createQuery(sql("cancelScheduleFutureJobs"))
            .bind("scheduleId", scheduleId)
            .bind("now", now)
            .bind("reason", reason)
            .map(
                (rs, ctx) ->
                    new CancelledFutureJob(
                        JobRowMapper.queueEntry(rs, ctx), Columns.instant(rs, "occurrence_at")))
            .list();
    if (cancelled.isEmpty()) {
      return new CancelledFutureJobs(List.of(), List.of());
    }
    List<UUID> ids = cancelled.stream().map(c -> c.entry().id()).toList();
    return new CancelledFutureJobs(cancelled, DEPENDENCIES.afterEnded(h, ids, now));
  }

  // --- RESCUE, RESCUE_EXHAUSTED

  /**
   * What the reaper decided for a lost attempt: back to PENDING at {@code nextRunAt}, or FAILED
   * (then {@code nextRunAt} is null).
   */
  public record Rescue(
      UUID jobId, int attempt, JobState nextState, Instant nextRunAt, String error) {
    public Rescue {
      if (nextState != Transition.RESCUE.to() && nextState != Transition.RESCUE_EXHAUSTED.to()) {
        throw new IllegalArgumentException("a rescue ends PENDING or FAILED, not " + nextState);
      }
      if ((nextState == JobState.PENDING) != (nextRunAt != null)) {
        throw new IllegalArgumentException("nextRunAt goes with PENDING, and only with it");
      }
    }

    boolean exhausted() {
      return nextState == Transition.RESCUE_EXHAUSTED.to();
    }
  }

  /**
   * {@link Transition#RESCUE} and {@link Transition#RESCUE_EXHAUSTED} for jobs still RUNNING with
   * the same attempt and still silent since {@code staleBefore}; records each lost attempt as LOST.
   * {@link Ended#applied()} holds the ids rescued; a job that FAILED this way releases the jobs
   * waiting for it like any other end.
   */
  public Ended rescue(List<Rescue> rescues, Instant staleBefore) {
    if (rescues.isEmpty()) {
      return Ended.NONE;
    }
    Instant now = clock.instant();
    Set<AlertEvent> watched = alerts.watched();
    return DeadlockRetry.run(
        "rescue",
        () ->
            byKeys(
                jdbi,
                h -> {
                  Set<UUID> rescued =
                      new HashSet<>(
                          UnnestColumns.of(rescues)
                              .jobKeys(Rescue::jobId)
                              .idsWhere("rescueIds", Rescue::jobId, r -> !r.exhausted())
                              .idsWhere("exhaustedIds", Rescue::jobId, Rescue::exhausted)
                              .ints("attempts", Rescue::attempt)
                              .millis("nextRunAtMs", Rescue::nextRunAt)
                              .texts("errors", Rescue::error)
                              .bind(h.createQuery(sql("rescue")))
                              .bind("staleBefore", staleBefore)
                              .bind("now", now)
                              .mapTo(UUID.class)
                              .list());
                  AlertOutbox.afterEnded(h, AlertEndings.rescued(watched, rescues, rescued), now);
                  List<UUID> failed = new ArrayList<>();
                  for (Rescue r : rescues) {
                    if (r.exhausted() && rescued.contains(r.jobId())) {
                      failed.add(r.jobId());
                    }
                  }
                  return new Ended(rescued, DEPENDENCIES.afterEnded(h, failed, now));
                }));
  }

  // --- HAND_BACK

  /**
   * {@link Transition#HAND_BACK} for attempts {@code workerId} still holds (RUNNING with that
   * attempt and worker): PENDING again, due now, with one more attempt allowed, the attempt
   * recorded HANDED_BACK and its slots freed (handBack.sql). Returns the jobs moved; the caller
   * enqueues them and releases their limit holds in Redis.
   */
  public List<HandBack.Moved> handBack(List<HandBack> handBacks, String workerId) {
    if (handBacks.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    return DeadlockRetry.run(
        "hand back",
        () ->
            byKeys(
                jdbi,
                h ->
                    UnnestColumns.of(handBacks)
                        .jobKeys(HandBack::jobId)
                        .ints("attempts", HandBack::attempt)
                        .longs("durationsMs", HandBack::durationMs)
                        .texts("errors", HandBack::error)
                        .bind(h.createQuery(sql("handBack")))
                        .bind("workerId", workerId)
                        .bind("now", now)
                        .map(
                            (rs, ctx) ->
                                new HandBack.Moved(
                                    JobRowMapper.queueEntry(rs, ctx), rs.getInt("attempt")))
                        .list()));
  }

  // --- RERUN_FAILED, RERUN_CANCELLED, RERUN_SKIPPED

  /**
   * {@link Transition#RERUN_FAILED}, {@link Transition#RERUN_CANCELLED} and {@link
   * Transition#RERUN_SKIPPED}: the jobs {@code ids} of {@code namespace} that are FAILED, CANCELLED
   * or SKIPPED become PENDING again, due now, with at least one attempt left (rerun.sql); returns
   * those moved (the caller enqueues them). The jobs judged when they ended are not judged again:
   * what their end released or skipped stays as it is.
   */
  public List<Job> rerun(String namespace, Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    return jdbi.withHandle(h -> rerunIn(h, namespace, ids, now));
  }

  /** {@link #rerun}, inside the caller's transaction {@code h} (see {@link #cancelIn}). */
  public static List<Job> rerunIn(Handle h, String namespace, Collection<UUID> ids, Instant now) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return h.createQuery(sql("rerun"))
        .bind("ids", ids.toArray(UUID[]::new))
        .bindMap(UnnestColumns.scheduledBounds(ids))
        .bind("namespace", namespace)
        .bind("now", now)
        .map(JobRowMapper.INSTANCE)
        .list();
  }

  // --- UNBLOCK, SKIP

  /** A judged BLOCKED job: made PENDING ({@code skipReason} null) or SKIPPED for that reason. */
  record Judged(UUID id, String skipReason) {
    boolean skip() {
      return skipReason != null;
    }
  }

  /**
   * {@link Transition#UNBLOCK} and {@link Transition#SKIP} for locked BLOCKED jobs, inside the
   * caller's transaction; adds those made PENDING to {@code released} and returns those SKIPPED.
   */
  static Set<UUID> unblockOrSkip(
      Handle h, List<Judged> judged, Instant now, List<QueueEntry> released) {
    Set<UUID> skipped = new LinkedHashSet<>();
    UnnestColumns.of(judged)
        .jobKeys(Judged::id)
        .idsWhere("unblockIds", Judged::id, j -> !j.skip())
        .idsWhere("skipIds", Judged::id, Judged::skip)
        .texts("reasons", Judged::skipReason)
        .bind(h.createQuery(sql("unblockOrSkip")))
        .bind("now", now)
        .map(
            (rs, ctx) -> {
              if (JobState.valueOf(rs.getString("status")) == Transition.SKIP.to()) {
                skipped.add(rs.getObject("id", UUID.class));
              } else {
                released.add(JobRowMapper.queueEntry(rs, ctx));
              }
              return rs.getObject("id", UUID.class);
            })
        .list();
    return skipped;
  }
}
