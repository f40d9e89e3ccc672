package io.punctual.app.outbox;

import io.punctual.app.CurrentTrace;
import io.punctual.app.request.JobDefaults;
import io.punctual.app.request.JobRequestMapper;
import io.punctual.client.JobRequest;
import io.punctual.client.WorkflowRequest;
import io.punctual.model.NamespaceName;
import io.punctual.model.TraceParent;
import io.punctual.requests.jobs.ValidatedJob;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Jobs written in the application's own transaction on its own database (not Punctual's): each
 * request is a row of {@code punctual_outbox}, committed or rolled back with the application's
 * rows, and an {@link OutboxRelay} forwards the committed ones to the Punctual API.
 *
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   insertOrder(c, order);
 *   outbox.enqueue(c, JobRequest.builder("invoice.send").payload(order).build());
 *   c.commit();   // one job from here on; a rollback leaves none
 * }
 * }</pre>
 *
 * Each row carries an idempotency key (the request's own, or {@code outbox-<random UUID>}), which
 * the relay sends with it: a row forwarded again after a crash returns the job of the first
 * forward.
 */
public final class PunctualOutbox {
  /** The table's migration, a resource of this jar (copy it into Flyway or Liquibase). */
  public static final String MIGRATION = "io/punctual/app/outbox/V1__punctual_outbox.sql";

  /** The channel {@code enqueue} notifies at commit and a listening relay waits on. */
  static final String CHANNEL = "punctual_outbox";

  private final Clock clock;
  private final JobRequestMapper mapper;
  private final String namespace;

  private PunctualOutbox(Clock clock, JobRequestMapper mapper, String namespace) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.mapper = mapper;
    this.namespace = namespace;
  }

  private PunctualOutbox(Clock clock, JobDefaults defaults) {
    this(clock, new JobRequestMapper(defaults), null);
  }

  /**
   * This outbox writing rows for {@code namespace}: the relay forwards them there (its key must be
   * allowed there, else they wait, tried again, as any 403). This one's rows go to the relay's
   * client's namespace.
   *
   * @throws IllegalArgumentException not a namespace name the API takes
   */
  public PunctualOutbox inNamespace(String namespace) {
    if (!NamespaceName.isValid(namespace)) {
      throw new IllegalArgumentException(
          "namespace must be 1 to 100 letters, digits, '.', '_', ':' or '-', starting with a letter"
              + " or digit: "
              + namespace);
    }
    return new PunctualOutbox(clock, mapper, namespace);
  }

  /** The namespace this outbox's rows name, or null: the relay's. */
  public String namespace() {
    return namespace;
  }

  /** An outbox validating requests as the API does with its default settings. */
  public static PunctualOutbox create(Clock clock) {
    return new PunctualOutbox(clock, JobDefaults.API);
  }

  /** An outbox validating requests with the API's {@code defaults} when they are not its own. */
  public static PunctualOutbox create(Clock clock, JobDefaults defaults) {
    return new PunctualOutbox(clock, Objects.requireNonNull(defaults, "defaults"));
  }

  /** The text of {@link #MIGRATION}. */
  public static String migrationSql() {
    try (InputStream in = PunctualOutbox.class.getClassLoader().getResourceAsStream(MIGRATION)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + MIGRATION);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs {@link #MIGRATION} on {@code connection} (creates the table if it is missing), in the
   * connection's transaction mode: with auto-commit off, the caller commits.
   */
  public static void createTable(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(migrationSql());
    }
  }

  /**
   * Writes one job request in the transaction open on {@code connection} (auto-commit off); returns
   * the row's id.
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse, named;
   *     nothing written
   * @throws IllegalStateException the connection is in auto-commit mode
   */
  public long enqueue(Connection connection, JobRequest request) throws SQLException {
    return enqueueAll(connection, List.of(request), CurrentTrace.traceparent(), false).get(0);
  }

  /**
   * {@link #enqueue(Connection, JobRequest)} within the caller's trace: {@code traceparent} (W3C,
   * {@code 00-<trace id>-<span id>-<flags>}) is sent with the request, so a traced worker's span of
   * each attempt is its child. An invalid or null one is dropped.
   */
  public long enqueue(Connection connection, JobRequest request, String traceparent)
      throws SQLException {
    return enqueueAll(connection, List.of(request), traceparent, false).get(0);
  }

  /**
   * Writes several requests, all or none (one row each, forwarded one by one in this order); errors
   * name the request ({@code jobs[2].type}). Returns the rows' ids in order.
   */
  public List<Long> enqueueAll(Connection connection, List<JobRequest> requests)
      throws SQLException {
    return enqueueAll(connection, requests, CurrentTrace.traceparent());
  }

  /** {@link #enqueueAll(Connection, List)} within the caller's trace (see {@link #enqueue}). */
  public List<Long> enqueueAll(Connection connection, List<JobRequest> requests, String traceparent)
      throws SQLException {
    if (requests.isEmpty()) {
      throw new IllegalArgumentException("no job to enqueue");
    }
    return enqueueAll(connection, requests, traceparent, true);
  }

  private List<Long> enqueueAll(
      Connection connection, List<JobRequest> requests, String traceparent, boolean batch)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    requireTransaction(connection);
    Instant now = clock.instant();
    List<ValidatedJob> checked =
        batch ? mapper.batch(requests) : List.of(mapper.one(requests.get(0)));
    List<JobRequest> keyed = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      JobRequest request = requests.get(i);
      keyed.add(
          checked.get(i).idempotencyKey() != null
              ? request
              : withKey(request, "outbox-" + UUID.randomUUID()));
    }
    String trace = TraceParent.validOrNull(traceparent);
    List<Long> ids = new ArrayList<>(keyed.size());
    for (JobRequest request : keyed) {
      ids.add(
          OutboxRows.insert(
              connection,
              OutboxJson.write(new OutboxJson.Stored(namespace, request, null)),
              request.idempotencyKey(),
              trace,
              now));
    }
    OutboxRows.notifyRelays(connection);
    return ids;
  }

  /**
   * Writes a workflow (steps with refs that wait for each other) as one row, in the transaction
   * open on {@code connection}; the relay submits it whole ({@code POST /workflows}) with its
   * idempotency key (its own, or {@code outbox-<random UUID>}), so a forward repeated after a crash
   * returns the workflow of the first. Returns the row's id.
   *
   * @throws io.punctual.app.request.InvalidJobRequestException a field the API would refuse, named
   *     ({@code jobs[1].dependsOn[0]}); nothing written
   * @throws IllegalStateException the connection is in auto-commit mode
   */
  public long enqueueWorkflow(Connection connection, WorkflowRequest workflow) throws SQLException {
    return enqueueWorkflow(connection, workflow, CurrentTrace.traceparent());
  }

  /** {@link #enqueueWorkflow(Connection, WorkflowRequest)} within the caller's trace. */
  public long enqueueWorkflow(Connection connection, WorkflowRequest workflow, String traceparent)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    requireTransaction(connection);
    String own = mapper.workflow(workflow).idempotencyKey();
    String key = own != null ? own : "outbox-" + UUID.randomUUID();
    WorkflowRequest keyed = own != null ? workflow : workflow.withIdempotencyKey(key);
    long id =
        OutboxRows.insert(
            connection,
            OutboxJson.write(new OutboxJson.Stored(namespace, null, keyed)),
            key,
            TraceParent.validOrNull(traceparent),
            clock.instant());
    OutboxRows.notifyRelays(connection);
    return id;
  }

  private static void requireTransaction(Connection connection) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the connection is in auto-commit mode: open a transaction (setAutoCommit(false)) so the"
              + " outbox rows commit or roll back with yours");
    }
  }

  private static JobRequest withKey(JobRequest r, String key) {
    return new JobRequest(
        r.type(),
        r.payload(),
        r.runAt(),
        r.delay(),
        r.priority(),
        r.maxAttempts(),
        r.backoff(),
        r.timeout(),
        key,
        r.tags(),
        r.callback(),
        r.ref(),
        r.parent(),
        r.parentId(),
        r.runCondition(),
        r.dependsOn());
  }
}
