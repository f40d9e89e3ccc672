package io.punctual.spring;

import io.punctual.app.outbox.PunctualOutbox;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import java.util.List;
import javax.sql.DataSource;

/**
 * Writes job requests to the outbox ({@code punctual_outbox}) in the Spring-managed transaction
 * when there is one (that of a {@code DataSourceTransactionManager}, or any manager binding the
 * same {@link DataSource}): the rows commit or roll back with the application's own, and the relay
 * forwards each committed row to the API as exactly one job. Outside a transaction each call
 * commits on its own.
 */
public final class TransactionalOutbox {
  private final PunctualOutbox outbox;
  private final DataSource dataSource;

  public TransactionalOutbox(PunctualOutbox outbox, DataSource dataSource) {
    this.outbox = outbox;
    this.dataSource = dataSource;
  }

  /**
   * Writes one request and returns its row's id.
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse
   * @throws IllegalStateException a transaction is active but its manager does not bind this {@link
   *     DataSource} (the connection is in auto-commit mode), or the write failed
   */
  public long enqueue(JobRequest request) {
    return write(c -> List.of(outbox.enqueue(c, request))).get(0);
  }

  /**
   * {@link #enqueue(JobRequest)} within the caller's trace: {@code traceparent} (W3C) is sent with
   * the request, so a traced worker's span of each attempt is its child.
   */
  public long enqueue(JobRequest request, String traceparent) {
    return write(c -> List.of(outbox.enqueue(c, request, traceparent))).get(0);
  }

  /** Writes several requests, all or none; errors name the request ({@code jobs[2].type}). */
  public List<Long> enqueueAll(List<JobRequest> requests) {
    return write(c -> outbox.enqueueAll(c, requests));
  }

  /**
   * Writes a workflow as one row (submitted whole by the relay) and returns the row's id.
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse
   */
  public long enqueueWorkflow(WorkflowRequest workflow) {
    return write(c -> List.of(outbox.enqueueWorkflow(c, workflow))).get(0);
  }

  /**
   * This outbox writing rows for {@code namespace} instead of {@code punctual.namespace} (the
   * relay's key must be allowed there).
   *
   * @throws IllegalArgumentException not a namespace name the API takes
   */
  public TransactionalOutbox inNamespace(String namespace) {
    return new TransactionalOutbox(outbox.inNamespace(namespace), dataSource);
  }

  private List<Long> write(SpringTransaction.Write<List<Long>> write) {
    return SpringTransaction.write(dataSource, write, null);
  }
}
