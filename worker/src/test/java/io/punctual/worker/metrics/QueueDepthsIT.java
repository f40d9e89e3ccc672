package io.punctual.worker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.punctual.common.metrics.MetricLabels;
import io.punctual.common.metrics.PrometheusExposition;
import io.punctual.embedded.EmbeddedRedisServer;
import io.punctual.model.Priority;
import io.punctual.model.QueueEntry;
import io.punctual.queue.Stores;
import io.punctual.queue.config.QueueSettings;
import io.punctual.queue.config.RedisSettings;
import io.punctual.store.testing.TestClock;
import io.punctual.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue depth gauges on real Redis: a scrape reads what {@link QueueDepths#runOnce()} kept and
 * makes no Redis call (before, each scrape more than a second after the last read Redis twice per
 * namespace and priority on the scrape's thread).
 */
class QueueDepthsIT {
  private final TestClock clock = new TestClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
  private final TestStores servers = TestStores.get();
  // A Redis server of its own: the test counts the server's ZCOUNT and ZCARD calls, which other
  // test classes running at the same time would add to on a shared one.
  private final EmbeddedRedisServer redis = EmbeddedRedisServer.start(null);
  private final Stores stores =
      new Stores(
          servers.newDatabase(),
          new RedisSettings(redis.url(), "t"),
          new QueueSettings(),
          clock,
          "t");
  private final MetricRegistry metrics = new MetricRegistry();
  private final WorkerMetrics worker = new WorkerMetrics(metrics);

  @AfterEach
  void close() {
    worker.close();
    stores.close();
    redis.close();
  }

  @Test
  void scrapesReadTheKeptDepthsAndMakeNoRedisCall() {
    PrometheusRegistry registry = PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS);
    QueueDepths depths = new QueueDepths(stores.queue(), List.of("default", "etl"), clock);
    worker.registerGauges(() -> 0, depths);
    enqueue("default", Priority.HIGH, 3, Duration.ZERO);
    enqueue("default", Priority.HIGH, 2, Duration.ofMinutes(5));
    enqueue("etl", Priority.LOW, 4, Duration.ZERO);
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high"))
        .as("before the first pass")
        .isEqualTo(-1);

    depths.runOnce();
    long before = queueReads();
    for (int i = 0; i < 20; i++) {
      assertThat(value(registry, "punctual_queue_due_jobs", "default", "high")).isEqualTo(3);
      assertThat(value(registry, "punctual_queue_future_jobs", "default", "high")).isEqualTo(2);
      assertThat(value(registry, "punctual_queue_due_jobs", "etl", "low")).isEqualTo(4);
      assertThat(value(registry, "punctual_queue_due_jobs", "etl", "normal")).isZero();
      assertThat(metrics.getGauges().get("punctual.queue.default.high.size").getValue())
          .isEqualTo(5L);
    }
    assertThat(queueReads() - before).as("ZCOUNT and ZCARD calls during 20 scrapes").isZero();

    // What the next pass finds: a job added, the future ones come due.
    enqueue("default", Priority.HIGH, 1, Duration.ZERO);
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high")).isEqualTo(3);
    clock.advance(Duration.ofMinutes(6));
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high"))
        .as("a scrape shows the last pass's values")
        .isEqualTo(3);
    assertThat(depths.runOnce()).isTrue();
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high")).isEqualTo(6);
    assertThat(value(registry, "punctual_queue_future_jobs", "default", "high")).isZero();
  }

  @Test
  void passesStopReadingRedisWhileNobodyReadsTheGaugesAndResumeAfterARead() {
    PrometheusRegistry registry = PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS);
    QueueDepths depths = new QueueDepths(stores.queue(), List.of("default"), clock);
    worker.registerGauges(() -> 0, depths);
    enqueue("default", Priority.HIGH, 2, Duration.ZERO);
    assertThat(depths.runOnce()).as("the first pass reads, asked or not").isTrue();
    clock.advance(QueueDepths.IDLE_AFTER.plusSeconds(1));
    long before = queueReads();
    assertThat(depths.runOnce()).as("nobody read a gauge since the first pass").isFalse();
    assertThat(queueReads() - before).as("ZCOUNT and ZCARD calls of an idle pass").isZero();

    enqueue("default", Priority.HIGH, 1, Duration.ZERO);
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high"))
        .as("the first scrape after the pause: the last pass's value")
        .isEqualTo(2);
    assertThat(depths.runOnce()).isTrue();
    assertThat(queueReads() - before).as("the pass after a scrape reads Redis").isPositive();
    assertThat(value(registry, "punctual_queue_due_jobs", "default", "high")).isEqualTo(3);
    clock.advance(QueueDepths.IDLE_AFTER.minusSeconds(1));
    assertThat(depths.runOnce()).as("a scrape less than IDLE_AFTER ago").isTrue();
  }

  @Test
  void aPassWhileRedisIsClosedShowsMinusOne() {
    QueueDepths depths = new QueueDepths(stores.queue(), List.of("default"), clock);
    worker.registerGauges(() -> 0, depths);
    enqueue("default", Priority.NORMAL, 2, Duration.ZERO);
    depths.runOnce();
    assertThat(depths.readings()).extracting(QueueDepths.Reading::size).contains(2L);
    stores.close();
    assertThat(depths.readings()).extracting(QueueDepths.Reading::size).contains(2L);
    depths.runOnce();
    assertThat(depths.readings()).extracting(QueueDepths.Reading::due).containsOnly(-1L);
    assertThat(metrics.getGauges().get("punctual.queue.default.normal.size").getValue())
        .isEqualTo(-1L);
  }

  private void enqueue(String namespace, Priority priority, int count, Duration in) {
    List<QueueEntry> entries =
        java.util.stream.IntStream.range(0, count)
            .mapToObj(
                i ->
                    new QueueEntry(
                        UUID.randomUUID(), namespace, priority, clock.instant().plus(in)))
            .toList();
    stores.queue().enqueue(entries);
  }

  /** ZCOUNT and ZCARD calls the Redis server has answered so far (its command statistics). */
  private long queueReads() {
    String info = stores.redis().sync().info("commandstats");
    long n = 0;
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_zcount:") || line.startsWith("cmdstat_zcard:")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        n += Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return n;
  }

  private static double value(
      PrometheusRegistry registry, String name, String namespace, String priority) {
    return registry.scrape(name::equals).stream()
        .map(s -> (GaugeSnapshot) s)
        .flatMap(s -> s.getDataPoints().stream())
        .filter(
            p ->
                namespace.equals(p.getLabels().get("namespace"))
                    && priority.equals(p.getLabels().get("priority")))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(name + " has no series " + namespace + "/" + priority))
        .getValue();
  }
}
