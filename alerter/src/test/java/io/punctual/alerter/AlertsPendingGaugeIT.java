package io.punctual.alerter;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.punctual.common.metrics.MetricLabels;
import io.punctual.common.metrics.PrometheusExposition;
import io.punctual.store.alert.AlertEvent;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlLogger;
import org.jdbi.v3.core.statement.StatementContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code punctual.alerts.pending} gauge on a Prometheus scrape: the count of the alerter's last
 * pass, read without a PostgreSQL query (before, every scrape ran a {@code count(*)}).
 */
class AlertsPendingGaugeIT {
  private final AlertFixture f = new AlertFixture();
  private final MetricRegistry metrics = new MetricRegistry();
  private final Alerter alerter = f.alerter(f.http, metrics);

  @AfterEach
  void close() {
    alerter.close();
    f.close();
  }

  @Test
  void scrapesShowTheLastPassCountAndRunNoQuery() {
    PrometheusRegistry registry = PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS);
    f.rule("failures", AlertEvent.JOB_FAILED, null);
    f.receiver.down();
    f.fail("report");
    assertThat(pending(registry)).as("before the first pass").isEqualTo(-1);

    alerter.runOnce();
    long stored = f.count("SELECT count(*) FROM alert_deliveries WHERE status = 'pending'");
    assertThat(stored).as("the notice the receiver did not take").isEqualTo(1);

    AtomicInteger statements = countStatements(f.stores.database().jdbi());
    for (int i = 0; i < 20; i++) {
      assertThat(pending(registry)).isEqualTo(stored);
    }
    assertThat(statements).as("statements run by 20 scrapes").hasValue(0);

    // The receiver is back: the next pass sends the notice and the gauge follows.
    f.receiver.up();
    f.clock.advance(java.time.Duration.ofMinutes(10));
    alerter.runOnce();
    assertThat(f.count("SELECT count(*) FROM alert_deliveries WHERE status = 'pending'")).isZero();
    assertThat(pending(registry)).isZero();
  }

  private static double pending(PrometheusRegistry registry) {
    return registry.scrape(name -> name.equals("punctual_alerts_pending")).stream()
        .map(s -> (GaugeSnapshot) s)
        .flatMap(s -> s.getDataPoints().stream())
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  /** Counts the statements {@code jdbi} runs from now on (every handle opened after this). */
  private static AtomicInteger countStatements(Jdbi jdbi) {
    AtomicInteger count = new AtomicInteger();
    jdbi.setSqlLogger(
        new SqlLogger() {
          @Override
          public void logAfterExecution(StatementContext context) {
            count.incrementAndGet();
          }

          @Override
          public void logException(StatementContext context, java.sql.SQLException ex) {
            count.incrementAndGet();
          }
        });
    return count;
  }
}
