package io.punctual.api.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.AuditStore;
import io.punctual.store.AuditStore.Query;
import io.punctual.store.config.AuditSettings;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The recorder's buffer and writer, against real PostgreSQL. */
class AuditLogIT {
  private final TestClock clock = new TestClock(Instant.now());
  private final TestStack stack = new TestStack(clock);
  private final AuditStore store = new AuditStore(stack.database.jdbi());
  private final MetricRegistry metrics = new MetricRegistry();

  @AfterEach
  void close() {
    stack.close();
  }

  private AuditLog auditLog(int bufferSize, Duration flushInterval) {
    AuditSettings settings = new AuditSettings();
    settings.bufferSize = bufferSize;
    settings.flushInterval = flushInterval;
    settings.maxBatch = 2;
    return new AuditLog(store, clock, settings, metrics);
  }

  private List<String> targets() {
    return store.page(new Query(null, null, null, null, null, null, null, 100)).items().stream()
        .map(s -> s.entry().target())
        .toList()
        .reversed();
  }

  private static Actor actor() {
    return new Actor(UUID.randomUUID(), "ops", "default", List.of("*"));
  }

  @Test
  void theWriterStoresWhatIsBufferedAtStop() throws Exception {
    AuditLog log = auditLog(100, Duration.ofHours(1));
    log.start();
    for (int i = 0; i < 5; i++) {
      log.record(actor(), "POST /api/v1/jobs", "t" + i, 201, null, null);
    }
    assertThat(targets()).isEmpty(); // the next flush is an hour away

    log.stop();

    assertThat(targets()).containsExactly("t0", "t1", "t2", "t3", "t4");
    assertThat(metrics.meter("punctual.audit.written").getCount()).isEqualTo(5);
    assertThat(metrics.gauge("punctual.audit.buffered", null).getValue()).isEqualTo(0);

    // A request answered after the writer stopped stores its entry itself.
    log.record(actor(), "POST /api/v1/jobs", "late", 201, null, null);
    assertThat(targets()).endsWith("late");
  }

  @Test
  void theWriterFlushesEveryInterval() throws Exception {
    AuditLog log = auditLog(100, Duration.ofMillis(50));
    log.start();
    try {
      log.record(actor(), "POST /api/v1/jobs", "soon", 201, null, null);
      await().atMost(Duration.ofSeconds(5)).until(() -> targets().equals(List.of("soon")));
    } finally {
      log.stop();
    }
  }

  @Test
  void aFullBufferMakesTheRequestWaitRatherThanDropAnEntry() throws Exception {
    AuditLog log = auditLog(2, Duration.ofHours(1)); // not started: nothing drains but runOnce
    log.record(actor(), "POST /api/v1/jobs", "a", 201, null, null);
    log.record(actor(), "POST /api/v1/jobs", "b", 201, null, null);

    CompletableFuture<Void> third =
        CompletableFuture.runAsync(
            () -> log.record(actor(), "POST /api/v1/jobs", "c", 201, null, null));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> metrics.meter("punctual.audit.waitedForRoom").getCount() == 1);
    assertThat(third).isNotDone();

    int written = log.runOnce();
    third.get();
    written += log.runOnce();

    assertThat(written).isEqualTo(3);
    assertThat(targets()).containsExactly("a", "b", "c");
  }

  @Test
  void entriesAreStoredToTheMicrosecondOfTheClock() {
    clock.set(Instant.parse("2031-05-06T07:08:09.123456789Z"));
    AuditLog log = auditLog(10, Duration.ofHours(1));
    log.record(actor(), "DELETE /api/v1/schedules/{id}", "s1", 200, null, "r1");
    log.runOnce();

    var stored = store.page(new Query(null, null, null, null, null, null, null, 1)).items();
    assertThat(stored).hasSize(1);
    assertThat(stored.get(0).entry().at())
        .isEqualTo(Instant.parse("2031-05-06T07:08:09.123456Z").truncatedTo(ChronoUnit.MICROS));
    assertThat(stored.get(0).entry().requestId()).isEqualTo("r1");
    assertThat(stored.get(0).entry().keyName()).isEqualTo("ops");
  }

  @Test
  void textsAreCutAndMadeStorable() {
    assertThat(AuditLog.text(null)).isNull();
    assertThat(AuditLog.text("plain")).isEqualTo("plain");
    assertThat(AuditLog.text("a\u0000b\uD800c\uD83D\uDE00"))
        .isEqualTo("a\uFFFDb\uFFFDc\uD83D\uDE00");
    assertThat(AuditLog.text("x".repeat(600))).hasSize(500);
  }
}
