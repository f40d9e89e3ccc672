package io.punctual.api.jobs;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.punctual.api.namespaces.NamespaceGate;
import io.punctual.api.namespaces.RateHeaders;
import io.punctual.api.problem.Problems;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.NewJob;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.config.QueueSettings;
import io.punctual.requests.jobs.ValidatedJob;
import io.punctual.requests.jobs.WorkflowRequestParser;
import io.punctual.store.IdempotencyConflictException;
import io.punctual.store.JobSubmissions;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.UnknownUpstreamException;
import io.punctual.store.WorkflowStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Stores validated jobs in PostgreSQL (one transaction), then, once committed, enqueues in Redis
 * those due within the horizon. A Redis failure does not fail the submit.
 */
public final class JobSubmitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobSubmitter.class);

  private final JobSubmissions store;
  private final WorkflowStore workflows;
  private final QueueWriter queue;
  private final QueueSettings queueSettings;
  private final Clock clock;
  private final Map<Priority, Meter> submitted = new EnumMap<>(Priority.class);
  private final GroupCommit<NewJob, Submitted> singles;
  private final Histogram groupSizes;
  private final AfterCommitHook afterCommit;
  private final NamespaceGate gate;
  private final JobMetrics jobMetrics;

  /**
   * Where submits go: the jobs and workflows in PostgreSQL, then the ready queue for those due
   * within {@code queueSettings.horizon}.
   */
  public record SubmitStores(
      JobSubmissions submissions,
      WorkflowStore workflows,
      QueueWriter queue,
      QueueSettings queueSettings) {}

  /**
   * The group commit of single submits: at most {@code concurrency} transactions at once (0: each
   * submit commits on its own), each of at most {@code maxGroup} jobs.
   */
  public record Grouping(int concurrency, int maxGroup) {}

  /**
   * @param gate asked before anything is stored, by every submit this class makes
   * @param afterCommit runs after each commit, before the answer (the fault injection's hook)
   */
  public JobSubmitter(
      NamespaceGate gate,
      SubmitStores stores,
      Grouping grouping,
      Clock clock,
      MetricRegistry metrics,
      AfterCommitHook afterCommit) {
    this.afterCommit = afterCommit;
    this.gate = gate;
    this.store = stores.submissions();
    this.workflows = stores.workflows();
    this.queue = stores.queue();
    this.queueSettings = stores.queueSettings();
    this.clock = clock;
    for (Priority p : Priority.values()) {
      submitted.put(
          p, metrics.meter(MetricRegistry.name("punctual.api.jobs.submitted", p.wireName())));
    }
    this.groupSizes = metrics.histogram("punctual.api.jobs.submitGroupSize");
    this.jobMetrics = JobMetrics.of(metrics);
    // The Redis enqueue runs after the group's slot is free: a slow or stalled Redis delays the
    // group's own answers, never the next group's transaction.
    this.singles =
        grouping.concurrency() == 0
            ? null
            : new GroupCommit<>(
                this::store,
                stored -> enqueueDueSoon(stored, clock.instant()),
                grouping.concurrency(),
                grouping.maxGroup());
  }

  /**
   * Stores one job ({@code POST /jobs}). Plain jobs go through the group commit: submits that
   * arrive while others are being committed share the next transaction. A job that waits for others
   * runs alone, since it share-locks what it names.
   *
   * @throws io.punctual.api.problem.ProblemException 409 on an idempotency key conflict; what the
   *     {@link NamespaceGate} refuses
   */
  Submitted submitOne(String namespace, ValidatedJob job, RateHeaders rate) {
    try (NamespaceGate.Admission admitted =
        gate.admit(namespace, 1, i -> job.payload(), i -> job.timeout(), i -> "", rate)) {
      NewJob newJob = job.toNewJob(namespace, clock.instant());
      if (singles == null || newJob.links().waits()) {
        return storeAll(namespace, List.of(job), i -> "").get(0);
      }
      try {
        return singles.call(newJob);
      } catch (IdempotencyConflictException e) {
        throw idempotencyConflict(e);
      }
    }
  }

  /** Stores a group's jobs in one transaction (the group commit enqueues them after). */
  private List<Submitted> store(List<NewJob> jobs) {
    groupSizes.update(jobs.size());
    List<Submitted> result = store.submit(jobs);
    afterCommit.afterCommit();
    return result;
  }

  /**
   * Stores the jobs; {@code fieldPrefix} names job {@code i} in errors ({@code "jobs[i]."}).
   *
   * @throws io.punctual.api.problem.ProblemException 409 on an idempotency key conflict; what the
   *     {@link NamespaceGate} refuses (the whole batch)
   */
  List<Submitted> submit(
      String namespace, List<ValidatedJob> jobs, IntFunction<String> prefix, RateHeaders rate) {
    try (NamespaceGate.Admission admitted =
        gate.admit(
            namespace,
            jobs.size(),
            i -> jobs.get(i).payload(),
            i -> jobs.get(i).timeout(),
            prefix,
            rate)) {
      return storeAll(namespace, jobs, prefix);
    }
  }

  private List<Submitted> storeAll(
      String namespace, List<ValidatedJob> jobs, IntFunction<String> prefix) {
    Instant now = clock.instant();
    List<NewJob> newJobs = new ArrayList<>(jobs.size());
    for (ValidatedJob job : jobs) {
      newJobs.add(job.toNewJob(namespace, now));
    }
    List<Submitted> result;
    try {
      result = store.submit(newJobs);
    } catch (IdempotencyConflictException e) {
      throw Problems.conflict(
          "idempotency-conflict",
          "Idempotency key conflict",
          e.getMessage() + " (key " + e.key() + ")",
          prefix.apply(e.index()) + "idempotencyKey");
    } catch (UnknownUpstreamException e) {
      throw unknownUpstream(jobs.get(e.index()), e);
    }
    afterCommit.afterCommit();
    enqueueDueSoon(result, now);
    return result;
  }

  /**
   * Stores a workflow and all its jobs in one transaction, then enqueues the steps that are PENDING
   * and due within the horizon (those waiting for other steps are BLOCKED, outside Redis).
   */
  public WorkflowStore.Created submit(
      String namespace, WorkflowRequestParser.ValidatedWorkflow workflow, RateHeaders rate) {
    try (NamespaceGate.Admission admitted =
        gate.admit(
            namespace,
            workflow.size(),
            i -> workflow.step(i).payload(),
            i -> workflow.step(i).timeout(),
            i -> "jobs[" + i + "].",
            rate)) {
      return create(namespace, workflow);
    }
  }

  private WorkflowStore.Created create(
      String namespace, WorkflowRequestParser.ValidatedWorkflow workflow) {
    Instant now = clock.instant();
    WorkflowStore.Created created;
    try {
      created =
          workflows.create(
              namespace,
              workflow.toSteps(namespace, now),
              workflow.idempotencyKey(),
              workflow.idempotencyKey() == null ? null : workflow.requestHash());
    } catch (IdempotencyConflictException e) {
      throw idempotencyConflict(e);
    } catch (UnknownUpstreamException e) {
      throw unknownUpstream(workflow.step(e.index()), e);
    }
    if (created.created()) {
      List<QueueEntry> pending = new ArrayList<>();
      for (WorkflowStore.Step step : created.workflow().steps()) {
        Job job = step.job();
        submitted.get(job.priority()).mark();
        jobMetrics.submitted(job.namespace(), job.type(), 1);
        if (job.status() == JobState.PENDING) {
          pending.add(QueueEntry.of(job));
        }
      }
      enqueueReleased(pending);
      LOG.info(
          "workflow submitted workflow={} namespace={} jobs={} queued={}",
          created.workflow().id(),
          namespace,
          created.workflow().steps().size(),
          pending.size());
    }
    return created;
  }

  /** 422 naming the field that names a job which does not exist in the namespace. */
  private static RuntimeException unknownUpstream(ValidatedJob job, UnknownUpstreamException e) {
    return Problems.invalid(List.of(job.unknownUpstream(e.upstreamId())));
  }

  /**
   * Puts into Redis the jobs a step released (jobs that waited for one that ended) due within the
   * horizon; later ones reach Redis through the promoter. A Redis failure is left to the reaper.
   */
  public void enqueueReleased(List<QueueEntry> released) {
    Instant horizon = clock.instant().plus(queueSettings.horizon);
    queue.enqueue(released.stream().filter(e -> !e.runAt().isAfter(horizon)).toList());
  }

  private void enqueueDueSoon(List<Submitted> result, Instant now) {
    Instant horizon = now.plus(queueSettings.horizon);
    List<QueueEntry> entries = new ArrayList<>();
    for (Submitted s : result) {
      Job job = s.job();
      if (!s.created()) {
        // An idempotent repeat: perhaps of a submit whose commit went through while its answer
        // was lost (a 5xx, a dropped connection) before the job reached Redis. A stored job still
        // PENDING and due soon goes (again) into its queue: re-adding a queued job changes
        // nothing, and it need not wait for the reaper's reconciliation.
        if (job.status() == JobState.PENDING && !job.runAt().isAfter(horizon)) {
          entries.add(QueueEntry.of(job));
        }
        continue;
      }
      submitted.get(job.priority()).mark();
      jobMetrics.submitted(job.namespace(), job.type(), 1);
      try (MDC.MDCCloseable j = MDC.putCloseable("job", job.id().toString());
          MDC.MDCCloseable n = MDC.putCloseable("namespace", job.namespace())) {
        LOG.debug(
            "job submitted job={} namespace={} type={} priority={} runAt={}",
            job.id(),
            job.namespace(),
            job.type(),
            job.priority().wireName(),
            job.runAt());
      }
      // A BLOCKED job waits outside Redis until what it waits for ends; a SKIPPED one is final.
      if (job.status() == JobState.PENDING && !job.runAt().isAfter(horizon)) {
        entries.add(QueueEntry.of(job));
      }
    }
    boolean queued = queue.enqueue(entries);
    // DEBUG, like the per-job line above: at thousands of submits a second an INFO line per
    // request is noise in the log and CPU on the request path; a failed enqueue is still a WARN.
    LOG.debug(
        "jobs submitted count={} created={} queued={} redis={} firstJob={}",
        result.size(),
        result.stream().filter(Submitted::created).count(),
        entries.size(),
        queued ? "ok" : "failed",
        result.isEmpty() ? null : result.get(0).job().id());
  }

  /** The 409 of a key already used with another request. */
  private static RuntimeException idempotencyConflict(IdempotencyConflictException e) {
    return Problems.conflict(
        "idempotency-conflict",
        "Idempotency key conflict",
        e.getMessage() + " (key " + e.key() + ")",
        "idempotencyKey");
  }
}
