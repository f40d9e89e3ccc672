package io.punctual.spring;

import io.punctual.app.PunctualJobs;
import io.punctual.app.Submission;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Submits jobs that join the Spring-managed transaction when there is one: the jobs' rows are
 * written on the transaction's connection (that of a {@code DataSourceTransactionManager}, or any
 * manager binding the same {@link DataSource}), and they are put into Redis after its commit; a
 * rollback leaves no job. Outside a transaction each call commits on its own. A commit whose
 * enqueue is lost (the application died at that moment) is repaired by a reaper within {@code
 * reaper.reconcileAfter + reaper.interval} of the job's due time (docs/in-your-app.md).
 */
public final class TransactionalJobs {
  private final PunctualJobs jobs;
  private final DataSource dataSource;

  public TransactionalJobs(PunctualJobs jobs, DataSource dataSource) {
    this.jobs = jobs;
    this.dataSource = dataSource;
  }

  /**
   * Submits one job and returns its id (for an idempotent repeat, the job stored before).
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse
   * @throws io.punctual.store.IdempotencyConflictException the key was used with another request
   * @throws IllegalStateException a transaction is active but its manager does not bind this {@link
   *     DataSource} (the connection is in auto-commit mode)
   */
  public UUID submit(JobRequest request) {
    return submit(c -> jobs.submit(c, request)).id();
  }

  /**
   * {@link #submit(JobRequest)} within the caller's trace: {@code traceparent} (W3C Trace Context)
   * is stored with the job, and a traced worker's span of each attempt is its child.
   */
  public UUID submit(JobRequest request, String traceparent) {
    return submit(c -> jobs.submit(c, request, traceparent)).id();
  }

  /**
   * Submits several jobs, all or none, and returns their ids in request order. Errors name the job
   * ({@code jobs[2].type}).
   */
  public List<UUID> submitAll(List<JobRequest> requests) {
    return submit(c -> jobs.submitAll(c, requests)).ids();
  }

  /**
   * {@link #submitAll(List)} within the caller's trace (see {@link #submit(JobRequest, String)}).
   */
  public List<UUID> submitAll(List<JobRequest> requests, String traceparent) {
    return submit(c -> jobs.submitAll(c, requests, traceparent)).ids();
  }

  /**
   * Submits a workflow (steps with refs that wait for each other) and returns its id (for an
   * idempotent repeat, the workflow stored before); its steps' ids are those of {@code GET
   * /workflows/{id}}.
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse
   * @throws io.punctual.store.IdempotencyConflictException the key was used with another workflow
   */
  public UUID submitWorkflow(WorkflowRequest request) {
    return submit(c -> jobs.submitWorkflow(c, request)).workflowId().orElseThrow();
  }

  /** {@link #submitWorkflow(WorkflowRequest)} within the caller's trace. */
  public UUID submitWorkflow(WorkflowRequest request, String traceparent) {
    return submit(c -> jobs.submitWorkflow(c, request, traceparent)).workflowId().orElseThrow();
  }

  private Submission submit(Function<Connection, Submission> write) {
    return SpringTransaction.write(dataSource, write::apply, Submission::enqueue);
  }
}
