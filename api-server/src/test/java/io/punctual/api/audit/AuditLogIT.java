package io.punctual.api.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.punctual.queue.testing.TestStack;
import io.punctual.store.AuditStore;
import io.punctual.store.AuditStore.Entry;
import io.punctual.store.AuditStore.Query;
import io.punctual.store.AuditStore.Stored;
import io.punctual.store.config.AuditSettings;
import io.punctual.store.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

  private static final String UNAUTHORIZED = "https://punctual.dev/problems/unauthorized";

  /** Every stored row, oldest first. */
  private List<Stored> rows() {
    return store
        .page(new Query(null, null, null, null, null, null, null, 5_000))
        .items()
        .reversed();
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
  void aFullBufferNeverHoldsUpARequestAndItsDroppedEntriesAreCountedInOneEntry() throws Exception {
    AuditLog log = auditLog(2, Duration.ofHours(1)); // not started: nothing drains but runOnce
    Instant start = clock.instant().truncatedTo(ChronoUnit.MICROS);
    log.record(actor(), "POST /api/v1/jobs", "a", 201, null, null);
    log.record(actor(), "POST /api/v1/jobs", "b", 201, null, null);
    clock.advance(Duration.ofSeconds(1));

    // answered at once, in this thread: left out and counted
    CompletableFuture.runAsync(() -> log.record(actor(), "POST /api/v1/jobs", "c", 201, null, null))
        .get(5, TimeUnit.SECONDS);
    clock.advance(Duration.ofSeconds(1));
    log.record(actor(), "POST /api/v1/jobs", "d", 201, null, null);

    assertThat(metrics.meter("punctual.audit.dropped").getCount()).isEqualTo(2);
    assertThat(log.runOnce()).isEqualTo(3);
    List<Stored> rows = rows();
    assertThat(rows).extracting(r -> r.entry().target()).containsExactly("a", "b", null);
    Entry dropped = rows.get(2).entry();
    assertThat(dropped.kind()).isEqualTo(AuditStore.DROPPED);
    assertThat(dropped.count()).isEqualTo(2);
    assertThat(dropped.firstAt()).isEqualTo(start.plusSeconds(1));
    assertThat(dropped.at()).isEqualTo(start.plusSeconds(2));
    assertThat(dropped.action()).isEqualTo(AuditLog.DROPPED_ACTION);
    assertThat(dropped.keyId()).isNull();

    // room again: entries are kept one by one, and no second dropped entry comes
    log.record(actor(), "POST /api/v1/jobs", "e", 201, null, null);
    assertThat(log.runOnce()).isEqualTo(1);
    assertThat(rows()).extracting(r -> r.entry().target()).containsExactly("a", "b", null, "e");
  }

  @Test
  void refusedAuthenticationsAreOneEntryPerSourceMinuteReasonAndRouteOnceTheMinuteIsOver() {
    clock.set(Instant.parse("2031-05-06T07:08:00Z"));
    AuditLog log = auditLog(10, Duration.ofHours(1));
    for (int i = 0; i < 2_000; i++) {
      clock.advance(Duration.ofMillis(10));
      log.refused("10.0.0.7", "unknown key", "POST /api/v1/jobs", UNAUTHORIZED);
    }
    log.refused("10.0.0.8", "unknown key", "POST /api/v1/jobs", UNAUTHORIZED);
    log.refused("10.0.0.7", "no key", "POST /api/v1/jobs", UNAUTHORIZED);
    log.refused("10.0.0.7", "unknown key", "GET /api/v1/jobs", UNAUTHORIZED);

    assertThat(log.runOnce()).isZero(); // the minute is not over
    clock.set(Instant.parse("2031-05-06T07:09:00Z"));
    assertThat(log.runOnce()).isEqualTo(4);

    List<Entry> rows = rows().stream().map(Stored::entry).toList();
    assertThat(rows)
        .extracting(e -> e.source() + " " + e.reason() + " " + e.action() + " " + e.count())
        .containsExactlyInAnyOrder(
            "10.0.0.7 unknown key POST /api/v1/jobs 2000",
            "10.0.0.8 unknown key POST /api/v1/jobs 1",
            "10.0.0.7 no key POST /api/v1/jobs 1",
            "10.0.0.7 unknown key GET /api/v1/jobs 1");
    Entry flood = rows.stream().filter(e -> e.count() == 2_000).findFirst().orElseThrow();
    assertThat(flood.kind()).isEqualTo(AuditStore.REFUSALS);
    assertThat(flood.status()).isEqualTo(401);
    assertThat(flood.problem()).isEqualTo(UNAUTHORIZED);
    assertThat(flood.firstAt()).isEqualTo(Instant.parse("2031-05-06T07:08:00.010Z"));
    assertThat(flood.at()).isEqualTo(Instant.parse("2031-05-06T07:08:20Z"));
    assertThat(flood.keyId()).isNull();
    assertThat(flood.keyName()).isNull();
    assertThat(flood.target()).isNull();
    assertThat(metrics.meter("punctual.audit.refusalsCounted").getCount()).isEqualTo(2_003);
  }

  @Test
  void refusalsOfMoreSourcesThanTheCapAreCountedUnderOtherSources() {
    clock.set(Instant.parse("2031-05-06T07:08:00Z"));
    AuditLog log = auditLog(10, Duration.ofHours(1));
    for (int i = 0; i < AuditLog.MAX_REFUSAL_GROUPS + 5; i++) {
      log.refused("10.1." + (i / 256) + "." + (i % 256), "unknown key", "GET /api/v1/me", null);
    }
    clock.advance(Duration.ofMinutes(1));

    assertThat(log.runOnce()).isEqualTo(AuditLog.MAX_REFUSAL_GROUPS + 1);
    Entry other =
        rows().stream()
            .map(Stored::entry)
            .filter(e -> AuditLog.OTHER_SOURCES.equals(e.source()))
            .findFirst()
            .orElseThrow();
    assertThat(other.count()).isEqualTo(5);
  }

  @Test
  void refusalsOfTheCurrentMinuteAreStoredAtStop() throws Exception {
    AuditLog log = auditLog(10, Duration.ofHours(1));
    log.start();
    log.refused("10.0.0.9", "expired key", "DELETE /api/v1/schedules/{id}", UNAUTHORIZED);

    log.stop();

    assertThat(rows()).extracting(r -> r.entry().reason()).containsExactly("expired key");
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
