package io.punctual.app;

import static io.punctual.app.OutboxHarness.orderJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.app.outbox.OutboxBacklog;
import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.OutboxRelaySettings;
import io.punctual.app.outbox.PunctualOutbox;
import io.punctual.app.outbox.RelayPass;
import io.punctual.app.request.InvalidJobRequestException;
import io.punctual.client.Dependency;
import io.punctual.client.JobRequest;
import io.punctual.client.JobView;
import io.punctual.client.WorkflowRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The outbox of an application whose database is not Punctual's, end to end: rows written in the
 * application's transaction on its own database, a relay forwarding them to a real API (a JVM of
 * its own), jobs run by an embedded worker on Punctual's database. Each test has a job type of its
 * own.
 */
class OutboxIT {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private static OutboxHarness h;
  private static final Map<String, RecordingHandler> HANDLERS = new java.util.HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    h = new OutboxHarness();
    PunctualWorker.Builder worker = h.punctual.worker().concurrency(64);
    for (String type :
        List.of(
            "outbox.commit",
            "outbox.crash",
            "outbox.refused",
            "outbox.down",
            "outbox.relays",
            "outbox.latency.listen",
            "outbox.latency.poll",
            "outbox.workflow")) {
      RecordingHandler handler = new RecordingHandler(type);
      HANDLERS.put(type, handler);
      worker.handler(handler);
    }
    h.punctual.startWorker(worker);
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
  }

  private static OutboxRelaySettings quick() {
    return OutboxRelaySettings.DEFAULTS.withBackoff(Duration.ofMillis(100), Duration.ofMillis(400));
  }

  @Test
  void aCommittedRowIsOneJobWithItsTraceAndRunsOnce() throws Exception {
    long row;
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      OutboxHarness.insertOrder(c, 1);
      row = h.outbox.enqueue(c, orderJob("outbox.commit", 1), TRACEPARENT);
      c.commit();
    }
    assertThat(row).isPositive();
    OutboxRelay relay = h.relay(quick());

    assertThat(relay.runOnce()).isEqualTo(new RelayPass(1, 0, 0));

    assertThat(h.outboxRows()).isZero();
    assertThat(h.jobsByOrder("outbox.commit")).isEqualTo(Map.of(1L, 1));
    RecordingHandler handler = HANDLERS.get("outbox.commit");
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runs.size() == 1);
    try (Connection c = h.punctual.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT traceparent, idempotency_key FROM jobs WHERE type = 'outbox.commit'");
        ResultSet rs = s.executeQuery()) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(TRACEPARENT);
      assertThat(rs.getString(2)).startsWith("outbox-");
    }
    assertThat(relay.runOnce().taken()).isZero();
    Thread.sleep(300);
    assertThat(handler.runs).hasSize(1);
  }

  @Test
  void theMigrationIsTheShippedFileAndRunsAgainHarmlessly() throws Exception {
    assertThat(PunctualOutbox.migrationSql())
        .contains("CREATE TABLE IF NOT EXISTS punctual_outbox");
    try (Connection c = h.appPool.getConnection()) {
      PunctualOutbox.createTable(c);
    }
    assertThat(h.outboxRows()).isZero();
  }

  @Test
  void aRolledBackRowIsNoJob() throws Exception {
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      OutboxHarness.insertOrder(c, 2);
      h.outbox.enqueueAll(
          c, List.of(orderJob("outbox.rolledback", 2), orderJob("outbox.rolledback", 2)));
      c.rollback();
    }

    assertThat(h.outboxRows()).isZero();
    assertThat(h.relay(quick()).runOnce().taken()).isZero();
    assertThat(h.jobsByOrder("outbox.rolledback")).isEmpty();
    assertThat(h.count("SELECT count(*) FROM orders WHERE id = 2")).isZero();
  }

  @Test
  void aBadRequestThrowsNamingTheFieldAndWritesNothing() throws Exception {
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(
              () ->
                  h.outbox.enqueueAll(
                      c,
                      List.of(
                          orderJob("outbox.bad", 3),
                          JobRequest.builder("outbox.bad").maxAttempts(0).build())))
          .isInstanceOf(InvalidJobRequestException.class)
          .hasMessage("jobs[1].maxAttempts: must be between 1 and 100");
      try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM punctual_outbox");
          ResultSet rs = s.executeQuery()) {
        rs.next();
        assertThat(rs.getLong(1)).as("rows in the transaction itself").isZero();
      }
      c.rollback();

      c.setAutoCommit(true);
      assertThatThrownBy(() -> h.outbox.enqueue(c, orderJob("outbox.bad", 3)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
    assertThat(h.outboxRows()).isZero();
  }

  /**
   * The crash the idempotency key is for: the API stored the row's job, then the relay died before
   * deleting the row. The next forward is answered with that job, not a second one.
   */
  @Test
  void aRowForwardedAgainAfterACrashIsTheSameJob() throws Exception {
    h.commitOrder(4, orderJob("outbox.crash", 4));
    String key;
    try (Connection c = h.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT idempotency_key FROM punctual_outbox WHERE dead_at IS NULL");
        ResultSet rs = s.executeQuery()) {
      assertThat(rs.next()).isTrue();
      key = rs.getString(1);
    }
    JobView first =
        h.client.submit(
            JobRequest.builder("outbox.crash")
                .payload(Map.of("order", 4L))
                .idempotencyKey(key)
                .build());

    assertThat(h.relay(quick()).runOnce()).isEqualTo(new RelayPass(1, 0, 0));

    assertThat(h.outboxRows()).isZero();
    assertThat(h.jobsByOrder("outbox.crash")).isEqualTo(Map.of(4L, 1));
    RecordingHandler handler = HANDLERS.get("outbox.crash");
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runs.size() == 1);
    assertThat(handler.runs.get(0).jobId().toString()).isEqualTo(first.id());
  }

  @Test
  void aRequestTheApiRefusesIsSetAsideAndTheRowsBehindItGoOn() throws Exception {
    String big = "x".repeat(ApiMain.MAX_PAYLOAD_BYTES * 2);
    h.commitOrder(
        5, JobRequest.builder("outbox.refused").payload(Map.of("order", 5L, "big", big)).build());
    h.commitOrder(6, orderJob("outbox.refused", 6));
    MetricRegistry metrics = new MetricRegistry();
    OutboxRelay relay = h.relay(quick(), metrics);

    assertThat(relay.runOnce()).isEqualTo(new RelayPass(1, 0, 1));
    assertThat(metrics.meter("punctual.outbox.forwarded").getCount()).isEqualTo(1);
    assertThat(metrics.meter("punctual.outbox.retried").getCount()).isZero();
    assertThat(metrics.meter("punctual.outbox.dead").getCount()).isEqualTo(1);
    assertThat(relay.backlog()).isEqualTo(new OutboxBacklog(0, 1, null));
    assertThat(gauge(metrics, "punctual.outbox.rows.dead")).isEqualTo(1);
    assertThat(gauge(metrics, "punctual.outbox.rows.waiting")).isZero();
    assertThat(gauge(metrics, "punctual.outbox.oldest.seconds")).isZero();

    assertThat(h.jobsByOrder("outbox.refused")).isEqualTo(Map.of(6L, 1));
    try (Connection c = h.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT dead_at, last_error, attempts FROM punctual_outbox");
        ResultSet rs = s.executeQuery()) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getTimestamp(1)).isNotNull();
      assertThat(rs.getString(2)).startsWith("413");
      assertThat(rs.getInt(3)).isEqualTo(1);
      assertThat(rs.next()).isFalse();
    }
    assertThat(relay.runOnce().taken()).as("the dead row is not taken again").isZero();
    try (Connection c = h.appPool.getConnection()) {
      c.createStatement().execute("DELETE FROM punctual_outbox");
    }
  }

  /** The API down (killed): rows wait with a backoff each, then go once it is back. */
  @Test
  void whileTheApiIsDownRowsBackOffAndGoOnceItIsBack() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    OutboxRelay relay = h.relay(quick(), metrics);
    assertThat(h.killApi()).isEqualTo(137);
    try {
      Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      for (long id = 10; id < 13; id++) {
        h.commitOrder(id, orderJob("outbox.down", id));
      }
      assertThat(relay.runOnce()).isEqualTo(new RelayPass(0, 3, 0));
      assertThat(metrics.meter("punctual.outbox.retried").getCount()).isEqualTo(3);
      assertThat(relay.runOnce().taken()).as("backing off").isZero();
      assertThat(h.count("SELECT min(attempts) FROM punctual_outbox")).isEqualTo(1);
      assertThat(h.count("SELECT count(*) FROM punctual_outbox WHERE last_error IS NOT NULL"))
          .isEqualTo(3);
      Thread.sleep(1_100);
      OutboxBacklog backlog = relay.backlog();
      assertThat(backlog.waiting()).isEqualTo(3);
      assertThat(backlog.dead()).isZero();
      assertThat(backlog.oldestWaiting()).isBetween(before, Instant.now());
      assertThat(gauge(metrics, "punctual.outbox.rows.waiting")).isEqualTo(3);
      assertThat(gauge(metrics, "punctual.outbox.oldest.seconds")).isBetween(1L, 10L);
    } finally {
      h.startApi();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> relay.runOnce().forwarded() > 0 && h.outboxRows() == 0);
    assertThat(h.jobsByOrder("outbox.down")).isEqualTo(Map.of(10L, 1, 11L, 1, 12L, 1));
    assertThat(relay.backlog()).isEqualTo(OutboxBacklog.EMPTY);
    assertThat(gauge(metrics, "punctual.outbox.oldest.seconds")).isZero();
    RecordingHandler handler = HANDLERS.get("outbox.down");
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runs.size() == 3);
  }

  /**
   * A workflow written in the application's transaction is one row, submitted whole; its steps run
   * in their order. Forwarded again after a crash (the API had stored it), it is the same workflow.
   */
  @Test
  void aWorkflowRowIsOneWorkflowWhoseStepsRunInOrderAndAForwardAgainIsTheSame() throws Exception {
    WorkflowRequest workflow =
        WorkflowRequest.of(
            JobRequest.builder("outbox.workflow").payload(Map.of("order", 30L)).ref("a").build(),
            JobRequest.builder("outbox.workflow")
                .payload(Map.of("order", 31L))
                .ref("b")
                .dependsOn(Dependency.onStep("a"))
                .build());
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      OutboxHarness.insertOrder(c, 30);
      h.outbox.enqueueWorkflow(c, workflow, TRACEPARENT);
      c.commit();
    }
    assertThat(h.outboxRows()).as("one row for the whole workflow").isEqualTo(1);

    assertThat(h.relay(quick()).runOnce()).isEqualTo(new RelayPass(1, 0, 0));

    assertThat(h.outboxRows()).isZero();
    assertThat(h.jobsByOrder("outbox.workflow")).isEqualTo(Map.of(30L, 1, 31L, 1));
    assertThat(
            h.punctualCount(
                "SELECT count(*) FROM jobs WHERE type = 'outbox.workflow' AND traceparent = '"
                    + TRACEPARENT
                    + "'"))
        .isEqualTo(2);
    RecordingHandler handler = HANDLERS.get("outbox.workflow");
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runs.size() == 2);
    assertThat(handler.runs.get(0).startedAt()).isBefore(handler.runs.get(1).startedAt());

    // The crash: the API stored the row's workflow, the relay died before deleting the row.
    long workflows = h.punctualCount("SELECT count(*) FROM workflows");
    WorkflowRequest second =
        WorkflowRequest.of(
            JobRequest.builder("outbox.workflow").payload(Map.of("order", 32L)).ref("c").build());
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      h.outbox.enqueueWorkflow(c, second);
      c.commit();
    }
    String key;
    try (Connection c = h.appPool.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT idempotency_key FROM punctual_outbox");
        ResultSet rs = s.executeQuery()) {
      assertThat(rs.next()).isTrue();
      key = rs.getString(1);
    }
    assertThat(key).startsWith("outbox-");
    h.client.submitWorkflow(second.withIdempotencyKey(key));

    assertThat(h.relay(quick()).runOnce()).isEqualTo(new RelayPass(1, 0, 0));

    assertThat(h.punctualCount("SELECT count(*) FROM workflows")).isEqualTo(workflows + 1);
    assertThat(h.jobsByOrder("outbox.workflow")).isEqualTo(Map.of(30L, 1, 31L, 1, 32L, 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> handler.runs.size() == 3);
  }

  @Test
  void aBadWorkflowThrowsNamingTheFieldAndWritesNothing() throws Exception {
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      assertThatThrownBy(
              () ->
                  h.outbox.enqueueWorkflow(
                      c,
                      WorkflowRequest.of(
                          JobRequest.builder("outbox.bad").ref("a").build(),
                          JobRequest.builder("outbox.bad")
                              .ref("b")
                              .dependsOn(Dependency.onStep("missing"))
                              .build())))
          .isInstanceOf(InvalidJobRequestException.class)
          .hasMessageContaining("jobs[1].dependsOn[0]");
      c.commit();
    }
    assertThat(h.outboxRows()).isZero();
  }

  /** Rows naming a namespace go there, whatever the relay's client's own namespace. */
  @Test
  void aRowForAnotherNamespaceIsAJobThere() throws Exception {
    h.client.createNamespace("outbox-billing", null);
    try (Connection c = h.appPool.getConnection()) {
      c.setAutoCommit(false);
      h.outbox.inNamespace("outbox-billing").enqueue(c, orderJob("outbox.namespaced", 40));
      h.outbox.enqueue(c, orderJob("outbox.namespaced", 41));
      c.commit();
    }

    assertThat(h.relay(quick()).runOnce()).isEqualTo(new RelayPass(2, 0, 0));

    assertThat(
            h.punctualCount(
                "SELECT count(*) FROM jobs WHERE type = 'outbox.namespaced' AND namespace ="
                    + " 'outbox-billing' AND (payload->>'order')::bigint = 40"))
        .isEqualTo(1);
    assertThat(
            h.punctualCount(
                "SELECT count(*) FROM jobs WHERE type = 'outbox.namespaced' AND namespace ="
                    + " 'default' AND (payload->>'order')::bigint = 41"))
        .isEqualTo(1);
    assertThatThrownBy(() -> h.outbox.inNamespace("no spaces"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace must be");
  }

  /** A started relay shows the backlog in its gauges without being asked. */
  @Test
  void aRunningRelayShowsTheRowsSetAsideInItsGauges() throws Exception {
    h.commitOrder(20, orderJob("outbox.gauges", 20));
    try (Connection c = h.appPool.getConnection()) {
      c.createStatement()
          .execute(
              "UPDATE punctual_outbox SET dead_at = now(), attempts = 1"
                  + " WHERE request->>'type' = 'outbox.gauges'");
    }
    MetricRegistry metrics = new MetricRegistry();
    OutboxRelay relay = h.relay(quick(), metrics);
    relay.start();
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> gauge(metrics, "punctual.outbox.rows.dead") == 1);
      assertThat(gauge(metrics, "punctual.outbox.rows.waiting")).isZero();
    } finally {
      relay.close();
      try (Connection c = h.appPool.getConnection()) {
        c.createStatement().execute("DELETE FROM punctual_outbox");
      }
    }
  }

  private static long gauge(MetricRegistry metrics, String name) {
    return (Long) metrics.getGauges().get(name).getValue();
  }

  /** Three relays draining the same outbox at once: every row forwarded once, one job each. */
  @Test
  void severalRelaysAtOnceForwardEachRowOnce() throws Exception {
    int rows = 300;
    for (long id = 1000; id < 1000 + rows; id++) {
      h.commitOrder(id, orderJob("outbox.relays", id));
    }
    OutboxRelaySettings settings = quick().withBatchSize(10);
    List<Callable<Integer>> relays = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      OutboxRelay relay = h.relay(settings);
      relays.add(
          () -> {
            int forwarded = 0;
            RelayPass pass;
            while ((pass = relay.runOnce()).taken() > 0) {
              forwarded += pass.forwarded();
            }
            return forwarded;
          });
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    long start = System.nanoTime();
    int forwarded = 0;
    List<Integer> each = new ArrayList<>();
    try {
      for (Future<Integer> f : pool.invokeAll(relays)) {
        each.add(f.get());
        forwarded += f.get();
      }
    } finally {
      pool.shutdown();
    }

    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "3 relays (8 forwards at once each) drained %d rows in %d ms (%d rows/s), by relay %s%n",
        rows, millis, rows * 1000 / Math.max(1, millis), each);
    assertThat(forwarded).as("forwards, by relay " + each).isEqualTo(rows);
    assertThat(each).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(h.outboxRows()).isZero();
    Map<Long, Integer> jobs = h.jobsByOrder("outbox.relays");
    assertThat(jobs).hasSize(rows);
    assertThat(jobs.values()).containsOnly(1);
    RecordingHandler handler = HANDLERS.get("outbox.relays");
    await().atMost(Duration.ofSeconds(20)).until(() -> handler.runs.size() >= rows);
    assertThat(handler.runs.stream().map(RecordingHandler.Run::jobId).distinct()).hasSize(rows);
  }

  /**
   * From the commit of an outbox row to its handler's start, with the relay's default settings
   * (listening: woken by the commit) and polling only (every 200 ms): one row per transaction, one
   * after another. Prints p50, p99 and the maximum; holds every row to one run.
   */
  @Test
  void commitToHandlerStartListeningAndPolling() throws Exception {
    for (int i = 0; i < 300; i++) { // the API's JIT warmed up, as in a running deployment
      h.client.submit(JobRequest.builder("outbox.warm-up").build());
    }
    long listen = commitToStart("outbox.latency.listen", OutboxRelaySettings.DEFAULTS, 2_000_000);
    long poll =
        commitToStart(
            "outbox.latency.poll", OutboxRelaySettings.DEFAULTS.withListen(false), 3_000_000);
    assertThat(listen).as("p50 listening, ms").isLessThan(1_000);
    assertThat(poll).as("p50 polling, ms").isLessThan(1_000);
  }

  /** Returns the p50 in milliseconds. */
  private static long commitToStart(String type, OutboxRelaySettings settings, long firstOrder)
      throws Exception {
    int rows = 200;
    RecordingHandler handler = HANDLERS.get(type);
    OutboxRelay relay = h.relay(settings);
    relay.start();
    Thread.sleep(300); // listening
    Map<Long, java.time.Instant> committed = new java.util.HashMap<>();
    for (long id = firstOrder; id < firstOrder + rows; id++) {
      h.commitOrder(id, orderJob(type, id));
      committed.put(id, java.time.Instant.now());
      Thread.sleep(20); // spaced out: latency, not throughput
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> handler.runs.size() >= rows);
    relay.close();
    Map<java.util.UUID, Long> orderOf = new java.util.HashMap<>();
    try (Connection c = h.punctual.appPool.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT id, (payload->>'order')::bigint FROM jobs WHERE type = ?")) {
      s.setString(1, type);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          orderOf.put(rs.getObject(1, java.util.UUID.class), rs.getLong(2));
        }
      }
    }
    assertThat(orderOf).hasSize(rows);
    List<Long> waits = new ArrayList<>();
    for (RecordingHandler.Run run : handler.runs) {
      assertThat(handler.runsOf(run.jobId())).isEqualTo(1);
      waits.add(
          Duration.between(committed.get(orderOf.get(run.jobId())), run.startedAt()).toMillis());
    }
    waits.sort(null);
    System.out.printf(
        "outbox commit -> handler start (%s) over %d rows: p50 %d ms, p99 %d ms, max %d ms%n",
        settings.listen()
            ? "listening"
            : "polling every " + settings.pollInterval().toMillis() + " ms",
        rows,
        waits.get(rows / 2),
        waits.get(rows * 99 / 100),
        waits.get(rows - 1));
    return waits.get(rows / 2);
  }
}
