package io.punctual.app;

import io.punctual.app.request.InvalidJobRequestException;
import io.punctual.app.request.JobDefaults;
import io.punctual.app.request.JobRequestMapper;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.model.NewJob;
import io.punctual.queue.Stores;
import io.punctual.requests.FieldError;
import io.punctual.requests.jobs.ValidatedJob;
import io.punctual.requests.jobs.WorkflowRequestParser.ValidatedWorkflow;
import io.punctual.store.JobSubmissions.Submitted;
import io.punctual.store.UnknownUpstreamException;
import io.punctual.store.WorkflowStore;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Submits jobs inside the application's own JDBC transaction: the jobs' rows are written on the
 * caller's {@link Connection} and commit or roll back with the caller's own rows; the caller
 * commits, then calls {@link Submission#enqueue()} to make them claimable at once.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   insertOrder(c, order);
 *   Submission s = jobs.submit(c, JobRequest.builder("invoice.send").payload(order).build());
 *   c.commit();
 *   s.enqueue();   // after the commit; skipped or lost: the reaper queues it (see the bound)
 * }
 * }</pre>
 *
 * A rollback leaves no job. A commit without {@code enqueue()} (the application died between the
 * two) still runs the job: a reaper finds a PENDING job missing from Redis once it has been due
 * {@code reaper.reconcileAfter} (10 s) and queues it within {@code reaper.interval} (5 s) more, so
 * within about 15 s of its due time by default. Idempotency keys behave as over REST: the same key
 * with the same request returns the job stored before ({@link Submission#created} false), with
 * another request fails with {@link io.punctual.store.IdempotencyConflictException}.
 *
 * <p>The connection's database must be Punctual's (its schema migrated). Requests are validated and
 * filled in as {@code POST /jobs} does ({@link JobDefaults}); namespace quotas and rate limits are
 * the API's and are not applied here.
 */
public final class PunctualJobs implements AutoCloseable {
  private final Stores stores;
  private final JobRequestMapper mapper;
  private final String namespace;
  private final Duration enqueueTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PunctualJobs(
      Stores stores, JobRequestMapper mapper, String namespace, Duration enqueueTimeout) {
    this.stores = stores;
    this.mapper = mapper;
    this.namespace = namespace;
    this.enqueueTimeout = enqueueTimeout;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes one job in the transaction open on {@code connection} (auto-commit off), within the
   * current OpenTelemetry span's trace when there is one ({@link CurrentTrace}).
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse
   * @throws io.punctual.store.IdempotencyConflictException the key was used with another request
   * @throws IllegalStateException the connection is in auto-commit mode
   */
  public Submission submit(Connection connection, JobRequest request) {
    return submit(connection, List.of(request), false, CurrentTrace.traceparent());
  }

  /**
   * {@link #submit(Connection, JobRequest)} within the caller's trace: {@code traceparent} (W3C
   * Trace Context, {@code 00-<trace id>-<span id>-<flags>}) is stored with the job, as the REST API
   * stores the header's, and a traced worker's span of each attempt is its child. An invalid or
   * null one is dropped; it takes no part in the idempotency key's request hash.
   */
  public Submission submit(Connection connection, JobRequest request, String traceparent) {
    return submit(connection, List.of(request), false, traceparent);
  }

  /**
   * Writes several jobs in the transaction open on {@code connection}, all or none (as {@code POST
   * /jobs/batch}). Errors name the job ({@code jobs[2].type}).
   */
  public Submission submitAll(Connection connection, List<JobRequest> requests) {
    return submitAll(connection, requests, CurrentTrace.traceparent());
  }

  /** {@link #submitAll(Connection, List)} within the caller's trace (see {@link #submit}). */
  public Submission submitAll(
      Connection connection, List<JobRequest> requests, String traceparent) {
    if (requests.isEmpty()) {
      throw new IllegalArgumentException("no job to submit");
    }
    return submit(connection, requests, true, traceparent);
  }

  private Submission submit(
      Connection connection, List<JobRequest> requests, boolean batch, String traceparent) {
    Objects.requireNonNull(connection, "connection");
    List<ValidatedJob> valid =
        batch ? mapper.batch(requests) : List.of(mapper.one(requests.get(0)));
    Instant now = stores.clock().instant();
    List<NewJob> jobs = new ArrayList<>(valid.size());
    for (ValidatedJob job : valid) {
      jobs.add(job.withTraceparent(traceparent).toNewJob(namespace, now));
    }
    try {
      return submission(stores.submissions().submitIn(connection, jobs), null);
    } catch (UnknownUpstreamException e) {
      throw unknownUpstream(valid.get(e.index()), e);
    }
  }

  /**
   * Writes a workflow (as {@code POST /workflows}: steps with refs, waiting for each other by ref
   * or for stored jobs by id) in the transaction open on {@code connection}: its jobs commit or
   * roll back with the caller's rows. {@link Submission#jobs()} are its steps in request order,
   * {@link Submission#workflowId()} its id. With an idempotency key already used for the same
   * workflow, the stored one is returned ({@code created} false for every step).
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse ({@code
   *     jobs[1].dependsOn[0].ref}), or a stored job waited for that is not in the namespace
   * @throws io.punctual.store.IdempotencyConflictException the key was used with another workflow
   * @throws IllegalStateException the connection is in auto-commit mode
   */
  public Submission submitWorkflow(Connection connection, WorkflowRequest request) {
    return submitWorkflow(connection, request, CurrentTrace.traceparent());
  }

  /** {@link #submitWorkflow(Connection, WorkflowRequest)} within the caller's trace. */
  public Submission submitWorkflow(
      Connection connection, WorkflowRequest request, String traceparent) {
    Objects.requireNonNull(connection, "connection");
    ValidatedWorkflow workflow = mapper.workflow(request).withTraceparent(traceparent);
    Instant now = stores.clock().instant();
    WorkflowStore.Created created;
    try {
      created =
          stores
              .workflows()
              .createIn(
                  connection,
                  namespace,
                  workflow.toSteps(namespace, now),
                  workflow.idempotencyKey(),
                  workflow.idempotencyKey() == null ? null : workflow.requestHash());
    } catch (UnknownUpstreamException e) {
      throw unknownUpstream(workflow.step(e.index()), e);
    }
    List<Submitted> steps = new ArrayList<>();
    for (WorkflowStore.Step step : created.workflow().steps()) {
      steps.add(new Submitted(step.job(), created.created()));
    }
    return submission(steps, created.workflow().id());
  }

  private Submission submission(List<Submitted> submitted, UUID workflowId) {
    return new Submission(
        submitted,
        workflowId,
        stores.queue(),
        stores.clock(),
        stores.queueSettings().horizon,
        enqueueTimeout);
  }

  /** As the API's 422: the field naming a stored job to wait for that is not in the namespace. */
  private static InvalidJobRequestException unknownUpstream(
      ValidatedJob job, UnknownUpstreamException e) {
    FieldError refusal = job.unknownUpstream(e.upstreamId());
    return new InvalidJobRequestException(refusal.field(), refusal.message());
  }

  /**
   * PostgreSQL and Redis answer within {@code timeout} (no worker here: its claim loop is null).
   */
  public PunctualHealth health(Duration timeout) {
    return Backend.health(stores, null, timeout);
  }

  /** The namespace the jobs go in. */
  public String namespace() {
    return namespace;
  }

  /**
   * Closes the connections Punctual opened (Redis, its own pool; not an application's pool).
   * Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      stores.close();
    }
  }

  /** How to build {@link PunctualJobs}; {@code clock} and a database are needed. */
  public static final class Builder extends BackendBuilder<Builder> {
    private String namespace = NewJob.DEFAULT_NAMESPACE;
    private JobDefaults defaults = JobDefaults.API;
    private Duration enqueueTimeout = Duration.ofSeconds(2);

    private Builder() {}

    /** The namespace the jobs go in. Default {@code default}. */
    public Builder namespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /** Defaults and limits of job fields; keep them the API's ({@link JobDefaults#API}). */
    public Builder defaults(JobDefaults defaults) {
      this.defaults = Objects.requireNonNull(defaults, "defaults");
      return this;
    }

    /** Longest wait of {@link Submission#enqueue()} for Redis. Default 2 s. */
    public Builder enqueueTimeout(Duration enqueueTimeout) {
      if (enqueueTimeout == null || !enqueueTimeout.isPositive()) {
        throw new IllegalArgumentException("enqueueTimeout must be positive");
      }
      this.enqueueTimeout = enqueueTimeout;
      return this;
    }

    /** Opens the connections (migrating first with {@link #migrate}). */
    public PunctualJobs build() {
      if (namespace.isBlank()) {
        throw new IllegalArgumentException("namespace must not be blank");
      }
      return new PunctualJobs(
          backend.open("punctual-jobs"), new JobRequestMapper(defaults), namespace, enqueueTimeout);
    }
  }
}
