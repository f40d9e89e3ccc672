package io.punctual.store;

import io.punctual.model.Job;
import io.punctual.model.JobId;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.QueueEntry;
import io.punctual.model.Upstream;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.sql.Columns;
import io.punctual.store.sql.SqlFiles;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Workflows: a graph of jobs stored in one transaction, each step named by the caller's ref, read
 * back with every step's current state, and cancelled as a whole. The jobs themselves are ordinary
 * jobs with edges ({@link io.punctual.model.Upstream}); {@link JobSubmissions} stores them and
 * {@link JobTransitions} moves them. The SQL is in {@code WorkflowStore/*.sql} beside this class.
 */
public final class WorkflowStore {
  private static final SqlFiles SQL = new SqlFiles(WorkflowStore.class);

  private final JobSubmissions jobs;
  private final DependencyResolver dependencies = new DependencyResolver();

  public WorkflowStore(JobSubmissions jobs) {
    this.jobs = jobs;
  }

  private static String sql(String name) {
    return SQL.get(name);
  }

  /** A step to create: its ref and its job (whose in-batch edges index into the step list). */
  public record NewStep(String ref, NewJob job) {}

  /**
   * A step as it is now, and its dependencies ({@code dependsOn}: what it waits for besides its
   * parent, {@link JobQueries#dependsOn}).
   */
  public record Step(String ref, Job job, List<Upstream> dependsOn) {
    public Step {
      dependsOn = List.copyOf(dependsOn);
    }
  }

  /** How a workflow stands, from its steps. */
  public enum Status {
    /** Some step is not final yet. */
    RUNNING,
    /** Every step is final and none FAILED (SKIPPED branches are fine). */
    SUCCEEDED,
    /** Every step is final and at least one FAILED. */
    FAILED,
    /** Cancelled over the API (its unfinished steps were cancelled). */
    CANCELLED
  }

  public record Workflow(
      UUID id, String namespace, Instant createdAt, Instant cancelledAt, List<Step> steps) {
    public Status status() {
      if (cancelledAt != null) {
        return Status.CANCELLED;
      }
      boolean failed = false;
      for (Step s : steps) {
        if (!s.job().status().isTerminal()) {
          return Status.RUNNING;
        }
        failed |= s.job().status() == JobState.FAILED;
      }
      return failed ? Status.FAILED : Status.SUCCEEDED;
    }
  }

  /** A stored workflow, and whether this call created it (false: an idempotent repeat). */
  public record Created(Workflow workflow, boolean created) {}

  /**
   * Stores a workflow and all its jobs in one transaction, or nothing. With an idempotency key
   * already used in the namespace, the stored workflow is returned when {@code requestHash}
   * matches, and {@link IdempotencyConflictException} (index -1) is thrown when it does not.
   */
  public Created create(
      String namespace, List<NewStep> steps, String idempotencyKey, String requestHash) {
    Instant now = jobs.clock().instant();
    UUID id = JobId.forScheduledTime(now);
    List<NewJob> stepJobs = stepJobs(steps, id);
    List<UUID> ids = jobs.prepare(stepJobs, now);
    return jobs.partitions()
        .retryingDropped(
            ids,
            () -> createIn(namespace, steps, idempotencyKey, requestHash, id, stepJobs, ids, now));
  }

  /**
   * {@link #create} inside a transaction the caller holds on {@code connection} (auto-commit off):
   * the workflow, its steps' jobs and their edges commit or roll back with it. As {@link
   * JobSubmissions#submitIn(java.sql.Connection, List)}, partitions are made sure of first on the
   * store's own connections, and neither a deadlock nor a dropped partition is retried here.
   *
   * @throws IllegalStateException when the connection is in auto-commit mode
   * @throws IdempotencyConflictException the key was used with another workflow
   * @throws UnknownUpstreamException a step waits for a stored job not in the namespace
   */
  public Created createIn(
      java.sql.Connection connection,
      String namespace,
      List<NewStep> steps,
      String idempotencyKey,
      String requestHash) {
    try (Handle h = CallerTransaction.open(connection)) {
      Instant now = jobs.clock().instant();
      UUID id = JobId.forScheduledTime(now);
      List<NewJob> stepJobs = stepJobs(steps, id);
      jobs.requireNoPartitionWait(h, stepJobs, now);
      List<UUID> ids = jobs.prepare(stepJobs, now);
      return createIn(h, namespace, steps, idempotencyKey, requestHash, id, stepJobs, ids, now);
    }
  }

  private Created createIn(
      String namespace,
      List<NewStep> steps,
      String idempotencyKey,
      String requestHash,
      UUID id,
      List<NewJob> stepJobs,
      List<UUID> ids,
      Instant now) {
    return DeadlockRetry.run(
        "create workflow",
        () ->
            jobs.jdbi()
                .inTransaction(
                    h ->
                        createIn(
                            h,
                            namespace,
                            steps,
                            idempotencyKey,
                            requestHash,
                            id,
                            stepJobs,
                            ids,
                            now)));
  }

  private Created createIn(
      Handle h,
      String namespace,
      List<NewStep> steps,
      String idempotencyKey,
      String requestHash,
      UUID id,
      List<NewJob> stepJobs,
      List<UUID> ids,
      Instant now) {
    Optional<UUID> inserted =
        h.createQuery(sql("insertWorkflow"))
            .bind("id", id)
            .bind("namespace", namespace)
            .bind("idempotencyKey", idempotencyKey)
            .bind("requestHash", requestHash)
            .bind("now", now)
            .mapTo(UUID.class)
            .findOne();
    if (inserted.isEmpty()) {
      return new Created(repeat(h, namespace, idempotencyKey, requestHash), false);
    }
    List<Submitted> stored = jobs.submitIn(h, stepJobs, ids, now, false);
    insertSteps(h, id, steps, stored);
    return new Created(find(h, namespace, id).orElseThrow(), true);
  }

  /** The steps' jobs, each linked to workflow {@code id}. */
  private static List<NewJob> stepJobs(List<NewStep> steps, UUID id) {
    List<NewJob> out = new ArrayList<>(steps.size());
    for (NewStep s : steps) {
      out.add(s.job().withLinks(s.job().links().withWorkflowId(id)));
    }
    return out;
  }

  private record KeyHolder(UUID id, String requestHash) {}

  private Workflow repeat(Handle h, String namespace, String key, String requestHash) {
    KeyHolder holder =
        h.createQuery(sql("byKey"))
            .bind("namespace", namespace)
            .bind("idempotencyKey", key)
            .map(
                (rs, ctx) ->
                    new KeyHolder(rs.getObject("id", UUID.class), rs.getString("request_hash")))
            .one();
    if (!Objects.equals(holder.requestHash(), requestHash)) {
      throw new IdempotencyConflictException(
          -1, key, "idempotencyKey was already used with a different workflow");
    }
    return find(h, namespace, holder.id()).orElseThrow();
  }

  private static void insertSteps(
      Handle h, UUID workflowId, List<NewStep> steps, List<Submitted> stored) {
    int n = steps.size();
    Integer[] positions = new Integer[n];
    String[] refs = new String[n];
    UUID[] jobIds = new UUID[n];
    Long[] jobMs = new Long[n];
    for (int i = 0; i < n; i++) {
      positions[i] = i;
      refs[i] = steps.get(i).ref();
      jobIds[i] = stored.get(i).job().id();
      jobMs[i] = JobId.scheduledAt(jobIds[i]).toEpochMilli();
    }
    h.createUpdate(sql("insertSteps"))
        .bind("workflowId", workflowId)
        .bind("positions", positions)
        .bind("refs", refs)
        .bind("jobIds", jobIds)
        .bind("jobMs", jobMs)
        .execute();
  }

  public Optional<Workflow> find(String namespace, UUID id) {
    return jobs.jdbi().withHandle(h -> find(h, namespace, id));
  }

  private static Optional<Workflow> find(Handle h, String namespace, UUID id) {
    Optional<Workflow> head =
        h.createQuery(sql("find"))
            .bind("id", id)
            .bind("namespace", namespace)
            .map(
                (rs, ctx) ->
                    new Workflow(
                        rs.getObject("id", UUID.class),
                        rs.getString("namespace"),
                        Columns.instant(rs, "created_at"),
                        Columns.instant(rs, "cancelled_at"),
                        List.of()))
            .findOne();
    if (head.isEmpty()) {
      return head;
    }
    record Row(String ref, Job job) {}
    JobRowMapper.PerResult jobs = new JobRowMapper.PerResult();
    List<Row> rows =
        h.createQuery(sql("steps"))
            .bind("id", id)
            .map((rs, ctx) -> new Row(rs.getString("ref"), jobs.map(rs)))
            .list();
    Map<UUID, List<Upstream>> dependsOn =
        JobQueries.dependsOn(h, namespace, rows.stream().map(r -> r.job().id()).toList());
    List<Step> steps =
        rows.stream().map(r -> new Step(r.ref(), r.job(), dependsOn.get(r.job().id()))).toList();
    Workflow w = head.get();
    return Optional.of(new Workflow(w.id(), w.namespace(), w.createdAt(), w.cancelledAt(), steps));
  }

  /**
   * What cancelling a workflow did: the workflow as it is now, the steps it cancelled (to take out
   * of Redis), and jobs outside the workflow that waited for them and became PENDING.
   */
  public record Cancelled(
      Workflow workflow, List<QueueEntry> cancelled, List<QueueEntry> released) {}

  /**
   * Cancels every step not final yet (BLOCKED, PENDING or RUNNING) in one transaction and judges
   * the jobs waiting for them. Cancelling a workflow twice, or one whose steps all ended, changes
   * nothing more. Empty when the workflow does not exist in the namespace.
   */
  public Optional<Cancelled> cancel(String namespace, UUID id) {
    Instant now = jobs.clock().instant();
    return DeadlockRetry.run(
        "cancel workflow",
        () ->
            jobs.jdbi()
                .inTransaction(
                    h -> {
                      Optional<UUID> marked =
                          h.createQuery(sql("markCancelled"))
                              .bind("id", id)
                              .bind("namespace", namespace)
                              .bind("now", now)
                              .mapTo(UUID.class)
                              .findOne();
                      if (marked.isEmpty()) {
                        return Optional.<Cancelled>empty();
                      }
                      List<QueueEntry> cancelled = JobTransitions.cancelWorkflowSteps(h, id, now);
                      List<QueueEntry> released =
                          dependencies.afterEnded(
                              h, cancelled.stream().map(QueueEntry::id).toList(), now);
                      return Optional.of(
                          new Cancelled(find(h, namespace, id).orElseThrow(), cancelled, released));
                    }));
  }
}
