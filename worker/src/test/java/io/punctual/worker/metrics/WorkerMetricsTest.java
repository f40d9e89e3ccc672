package io.punctual.worker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkerMetricsTest {
  @Test
  void twoWorkersInOneRegistryShareTheirTimersAndHistograms() {
    MetricRegistry registry = new MetricRegistry();
    WorkerMetrics a = new WorkerMetrics(registry);
    WorkerMetrics b = new WorkerMetrics(registry);

    a.execution.update(10, TimeUnit.MILLISECONDS);
    b.execution.update(30, TimeUnit.MILLISECONDS);
    a.claimBatch.update(5);
    b.claimConfirm.update(2, TimeUnit.MILLISECONDS);

    assertThat(a.execution).isSameAs(b.execution);
    assertThat(registry.timer(WorkerMetrics.PREFIX + "execution").getCount()).isEqualTo(2);
    assertThat(a.execution.getSnapshot().getMax()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
    assertThat(a.execution.getSnapshot().getMin()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    assertThat(registry.histogram(WorkerMetrics.PREFIX + "claimBatch").getCount()).isEqualTo(1);
    assertThat(a.claimConfirm).isSameAs(registry.timer(WorkerMetrics.PREFIX + "claim.confirm"));
  }
}
