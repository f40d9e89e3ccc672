package io.punctual.app.outbox;

import com.codahale.metrics.MetricRegistry;
import io.punctual.app.outbox.OutboxRows.Row;
import io.punctual.client.PunctualApiException;
import io.punctual.client.PunctualClient;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the committed rows of {@code punctual_outbox} to the Punctual API, inside the
 * application. Leaderless: any number of relays may run at once on the same table; each pass takes
 * rows with {@code FOR UPDATE SKIP LOCKED} and leases them ({@link OutboxRelaySettings#lease}), so
 * relays take different rows.
 *
 * <p>Each row is sent with the Java client ({@code POST /jobs}, or {@code POST /workflows} for a
 * workflow; to the namespace the row names, else the client's) carrying its idempotency key and its
 * traceparent, outside any database transaction, and deleted once the API answered with its job.
 * <b>Exactly one job per committed row</b>: a row is deleted only after the API stored its job; a
 * relay, application or API that dies before the delete leaves the row, which is forwarded again
 * once its lease ends, and the API answers that forward with the job of the first (same key, same
 * request). A rolled-back row was never visible to a relay. A request the API refuses for good
 * (400, 413, 422, or a 409 idempotency conflict) is set aside ({@code dead_at}, {@code last_error})
 * and the rows behind it go on; any other failure (connection refused, 5xx, 429, 401/403, 404) is
 * recorded and tried again after a backoff of its own.
 *
 * <p>Its meters ({@code punctual.outbox.*}, in the registry given or one of its own): rows
 * forwarded, tried again and set aside, and the backlog ({@link #backlog()}) the running loop reads
 * every {@link #BACKLOG_EVERY}.
 */
public final class OutboxRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final int MAX_ERROR_LENGTH = 2_000;

  /** How often the running loop reads the backlog for the gauges. */
  public static final Duration BACKLOG_EVERY = Duration.ofSeconds(10);

  private final DataSource dataSource;
  private final PunctualClient client;
  private final Clock clock;
  private final OutboxRelaySettings settings;
  private final AtomicBoolean running = new AtomicBoolean();
  private final RelayWaiter waiter;
  private final OutboxMeters meters;
  private volatile Thread thread;
  private volatile String lastError;

  /**
   * A relay reading {@code punctual_outbox} through {@code dataSource} (the application's pool,
   * never closed here) and submitting with {@code client} (its URL, namespace and API key say where
   * the jobs go).
   */
  public OutboxRelay(
      DataSource dataSource, PunctualClient client, Clock clock, OutboxRelaySettings settings) {
    this(dataSource, client, clock, settings, new MetricRegistry());
  }

  /** The same, its meters in {@code metrics} (the application's registry, say). */
  public OutboxRelay(
      DataSource dataSource,
      PunctualClient client,
      Clock clock,
      OutboxRelaySettings settings,
      MetricRegistry metrics) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.waiter = new RelayWaiter(dataSource, settings);
    this.meters = new OutboxMeters(Objects.requireNonNull(metrics, "metrics"), clock);
  }

  /** One pass: takes up to a batch of due rows and forwards each. */
  public RelayPass runOnce() throws SQLException {
    Instant now = clock.instant();
    List<Row> rows;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      rows = OutboxRows.claim(c, now, now.plus(settings.lease()), settings.batchSize());
    }
    List<Outcome> outcomes = forwardAll(rows);
    int forwarded = 0;
    int retried = 0;
    int dead = 0;
    for (Outcome outcome : outcomes) {
      switch (outcome) {
        case FORWARDED -> forwarded++;
        case RETRY -> retried++;
        case DEAD -> dead++;
      }
    }
    if (retried > 0) {
      LOG.warn(
          "{} of {} outbox rows not forwarded, each tried again after its backoff; one error: {}",
          retried,
          rows.size(),
          lastError);
    }
    RelayPass pass = new RelayPass(forwarded, retried, dead);
    meters.passed(pass);
    return pass;
  }

  /**
   * Reads what the outbox holds now (one statement over the table) and shows it in the gauges
   * {@code punctual.outbox.rows.waiting}, {@code .rows.dead} and {@code .oldest.seconds}.
   */
  public OutboxBacklog backlog() throws SQLException {
    OutboxBacklog backlog;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      backlog = OutboxRows.backlog(c);
    }
    meters.read(backlog);
    return backlog;
  }

  /**
   * Forwards the rows, at most {@code forwardConcurrency} at once (each on a virtual thread: the
   * client's call blocks), and waits for them all.
   */
  private List<Outcome> forwardAll(List<Row> rows) throws SQLException {
    if (rows.size() <= 1 || settings.forwardConcurrency() == 1) {
      List<Outcome> outcomes = new ArrayList<>(rows.size());
      for (Row row : rows) {
        outcomes.add(forward(row));
      }
      return outcomes;
    }
    Semaphore slots = new Semaphore(settings.forwardConcurrency());
    List<Future<Outcome>> futures = new ArrayList<>(rows.size());
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (Row row : rows) {
        slots.acquireUninterruptibly();
        futures.add(
            threads.submit(
                () -> {
                  try {
                    return forward(row);
                  } finally {
                    slots.release();
                  }
                }));
      }
    }
    List<Outcome> outcomes = new ArrayList<>(rows.size());
    for (Future<Outcome> f : futures) {
      try {
        outcomes.add(f.get());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof SQLException sql) {
          throw sql;
        }
        throw new IllegalStateException("forwarding an outbox row failed", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return outcomes;
  }

  private enum Outcome {
    FORWARDED,
    RETRY,
    DEAD
  }

  private Outcome forward(Row row) throws SQLException {
    OutboxJson.Stored request;
    try {
      request = OutboxJson.read(row.request());
    } catch (IllegalStateException e) {
      return bury(row, e.getMessage());
    }
    try {
      PunctualClient target =
          request.namespace() == null ? client : client.withNamespace(request.namespace());
      if (request.job() != null) {
        target.submit(request.job(), row.traceparent());
      } else {
        target.submitWorkflow(request.workflow(), row.traceparent());
      }
    } catch (PunctualApiException e) {
      return refusedForGood(e) ? bury(row, e.getMessage()) : retry(row, e.getMessage());
    } catch (RuntimeException e) { // transport (UncheckedIOException), an unreadable answer
      return retry(row, e.toString());
    }
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      OutboxRows.delete(c, row.id());
    }
    return Outcome.FORWARDED;
  }

  /** The request itself is refused: sending it again cannot succeed. */
  static boolean refusedForGood(PunctualApiException e) {
    int status = e.status();
    return status == 400
        || status == 413
        || status == 422
        || (status == 409 && e.type() != null && e.type().endsWith("idempotency-conflict"));
  }

  private Outcome retry(Row row, String error) throws SQLException {
    Instant next = clock.instant().plus(settings.backoff(row.attempts()));
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      OutboxRows.retryAt(c, row.id(), truncate(error), next);
    }
    LOG.debug(
        "outbox row {} not forwarded (attempt {}), trying again at {}: {}",
        row.id(),
        row.attempts() + 1,
        next,
        error);
    lastError = error;
    return Outcome.RETRY;
  }

  private Outcome bury(Row row, String error) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      OutboxRows.bury(c, row.id(), truncate(error), clock.instant());
    }
    LOG.error("outbox row {} refused by the API for good, set aside: {}", row.id(), error);
    return Outcome.DEAD;
  }

  private static String truncate(String error) {
    String e = error == null ? "(no message)" : error;
    return e.length() <= MAX_ERROR_LENGTH ? e : e.substring(0, MAX_ERROR_LENGTH);
  }

  /**
   * Starts the loop on a thread of its own: a pass, then another at once if it was full, else a
   * wait of at most {@code pollInterval} (cut short by an enqueue's commit when listening).
   */
  public synchronized void start() {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("already started");
    }
    thread = Thread.ofPlatform().daemon().name("punctual-outbox-relay").start(this::loop);
  }

  private void loop() {
    Instant nextBacklog = Instant.MIN;
    try {
      while (running.get()) {
        Instant now = clock.instant();
        if (!now.isBefore(nextBacklog)) {
          nextBacklog = now.plus(BACKLOG_EVERY);
          try {
            backlog();
          } catch (SQLException | RuntimeException e) {
            LOG.warn("reading the outbox's backlog failed: {}", e.toString());
          }
        }
        RelayPass pass;
        try {
          pass = runOnce();
        } catch (SQLException | RuntimeException e) {
          LOG.warn("outbox relay pass failed: {}", e.toString());
          pass = new RelayPass(0, 0, 0);
        }
        if (pass.taken() < settings.batchSize() && running.get()) {
          waiter.await();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waiter.close();
    }
  }

  /**
   * Stops the loop: the pass under way ends (its rows forwarded or recorded), waiting for it at
   * most {@code lease}. Idempotent; the pool and the client stay open.
   */
  @Override
  public void close() throws InterruptedException {
    Thread t;
    synchronized (this) {
      running.set(false);
      t = thread;
      thread = null;
    }
    if (t != null) {
      RelayWaiter.wake(t);
      t.join(settings.lease().toMillis());
    }
  }
}
