package io.punctual.app;

import static io.punctual.app.OutboxHarness.orderJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.punctual.app.outbox.OutboxRelay;
import io.punctual.app.outbox.OutboxRelaySettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exactly one job per committed outbox row across crashes: a relay JVM killed ({@code kill -9}) in
 * the middle of the stream and another started, the API's JVM killed in the middle of the stream
 * and started again. Jobs run on an embedded worker; each order's job is counted in Punctual's
 * database and each run in the handler.
 */
class OutboxCrashIT {
  private static final int ROWS = 200;
  private static OutboxHarness h;
  private static final RecordingHandler RELAY_KILLED = new RecordingHandler("outbox.relay-killed");
  private static final RecordingHandler API_KILLED = new RecordingHandler("outbox.api-killed");
  private static final RecordingHandler HALTED = new RecordingHandler("outbox.halted");

  @BeforeAll
  static void setUp() throws Exception {
    h = new OutboxHarness();
    h.punctual.startWorker(
        h.punctual
            .worker()
            .handler(RELAY_KILLED)
            .handler(API_KILLED)
            .handler(HALTED)
            .concurrency(64));
  }

  @AfterAll
  static void tearDown() throws Exception {
    h.close();
  }

  /**
   * Commits {@link #ROWS} orders from {@code first} on, each with its job of {@code handler}'s
   * type.
   */
  private static void commitOrders(RecordingHandler handler, long first) throws Exception {
    for (long id = first; id < first + ROWS; id++) {
      h.commitOrder(id, orderJob(handler.type(), id));
    }
  }

  /** Waits until the stream is under way: some rows forwarded, most not. */
  private static void awaitMidStream(RecordingHandler handler) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> h.jobsByOrder(handler.type()).size() >= 30);
  }

  private static void assertOneJobPerRowRunOnce(RecordingHandler handler) throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> h.outboxRows() == 0);
    Map<Long, Integer> jobs = h.jobsByOrder(handler.type());
    assertThat(jobs).hasSize(ROWS);
    assertThat(jobs.values()).as("jobs per order").containsOnly(1);
    await().atMost(Duration.ofSeconds(20)).until(() -> handler.runs.size() >= ROWS);
    Thread.sleep(200);
    assertThat(handler.runs).hasSize(ROWS);
    assertThat(handler.runs.stream().map(RecordingHandler.Run::jobId).distinct()).hasSize(ROWS);
  }

  @Test
  void aRelayKilledMidStreamAndAnotherStartedLeaveOneJobPerRow() throws Exception {
    commitOrders(RELAY_KILLED, 0);
    Duration lease = Duration.ofSeconds(1);
    JavaProcess relay = h.relayProcess(lease);
    awaitMidStream(RELAY_KILLED);

    assertThat(relay.kill()).as("killed: 128 + SIGKILL").isEqualTo(137);
    long left = h.outboxRows();
    System.out.printf("relay killed with %d of %d rows forwarded%n", ROWS - left, ROWS);
    assertThat(left).as("rows not forwarded when the relay died").isPositive();

    try (JavaProcess another = h.relayProcess(lease)) {
      assertOneJobPerRowRunOnce(RELAY_KILLED);
    }
  }

  @Test
  void theApiKilledMidStreamAndStartedAgainLeavesOneJobPerRow() throws Exception {
    OutboxRelay relay =
        h.relay(
            OutboxRelaySettings.DEFAULTS.withBackoff(
                Duration.ofMillis(100), Duration.ofMillis(500)));
    commitOrders(API_KILLED, 100_000);
    relay.start();
    awaitMidStream(API_KILLED);

    assertThat(h.killApi()).as("killed: 128 + SIGKILL").isEqualTo(137);
    long left = h.outboxRows();
    System.out.printf("API killed with %d of %d rows forwarded%n", ROWS - left, ROWS);
    assertThat(left).as("rows not forwarded when the API died").isPositive();
    Thread.sleep(300); // the relay meets the dead API: rows back off
    assertThat(h.count("SELECT count(*) FROM punctual_outbox WHERE attempts > 0")).isPositive();

    h.startApi();
    assertOneJobPerRowRunOnce(API_KILLED);
  }

  /**
   * The relay's JVM halted as it was about to delete rows whose jobs the API had just stored (the
   * 20th delete; the rows forwarded beside it in the pass are in the same state): those rows are
   * forwarded again by the next relay and the API answers with the same jobs.
   */
  @Test
  void aRelayDyingBetweenTheApisAnswerAndTheDeleteLeavesOneJobPerRow() throws Exception {
    commitOrders(HALTED, 200_000);
    Duration lease = Duration.ofSeconds(1);
    JavaProcess relay = h.relayProcess(lease, "20");
    assertThat(relay.awaitExit(Duration.ofSeconds(30))).isEqualTo(RelayMain.HALTED);

    long forwardedNotDeleted = 0;
    Map<Long, Integer> jobs = h.jobsByOrder(HALTED.type());
    try (java.sql.Connection c = h.appPool.getConnection();
        java.sql.PreparedStatement s =
            c.prepareStatement(
                "SELECT (request->'payload'->>'order')::bigint FROM punctual_outbox");
        java.sql.ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        if (jobs.containsKey(rs.getLong(1))) {
          forwardedNotDeleted++;
        }
      }
    }
    System.out.printf(
        "relay halted before a delete: %d rows with their job stored and the row still there%n",
        forwardedNotDeleted);
    assertThat(forwardedNotDeleted).as("rows whose job exists, not deleted").isPositive();

    try (JavaProcess another = h.relayProcess(lease)) {
      assertOneJobPerRowRunOnce(HALTED);
    }
  }
}
