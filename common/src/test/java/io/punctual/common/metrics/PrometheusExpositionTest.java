package io.punctual.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bridge of Dropwizard metrics whose Prometheus names would collide. */
class PrometheusExpositionTest {
  @Test
  void aTimerBesideItsDotTotalTwinIsScrapedAndTheTwinLeftOut() {
    // What Jersey's @Timed registers for each resource method of the API: before, the scrape threw
    // "duplicate metric name" and /prometheus answered 500.
    MetricRegistry metrics = new MetricRegistry();
    metrics.timer("io.punctual.api.jobs.JobsResource.submit").update(Duration.ofMillis(3));
    metrics.timer("io.punctual.api.jobs.JobsResource.submit.total").update(Duration.ofMillis(3));
    metrics.meter("punctual.reaper.rescued").mark();

    List<String> names =
        PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS).scrape().stream()
            .map(s -> s.getMetadata().getPrometheusName())
            .toList();

    assertThat(names)
        .contains("io_punctual_api_jobs_JobsResource_submit", "punctual_reaper_rescued");
    assertThat(names).doesNotHaveDuplicates();
    assertThat(
            PrometheusExposition.collidesWithAnother(
                "io.punctual.api.jobs.JobsResource.submit.total", metrics))
        .isTrue();
    assertThat(PrometheusExposition.collidesWithAnother("punctual.reaper.rescued", metrics))
        .isFalse();
  }

  @Test
  void theTimersOfJerseysFiltersAreLeftOutOfTheScrape() {
    MetricRegistry metrics = new MetricRegistry();
    metrics.timer("io.punctual.api.jobs.JobsResource.list").update(Duration.ofMillis(3));
    metrics.timer("io.punctual.api.jobs.JobsResource.list.request.filtering").update(Duration.ZERO);
    metrics
        .timer("io.punctual.api.jobs.JobsResource.list.response.filtering")
        .update(Duration.ZERO);

    List<String> names =
        PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS).scrape().stream()
            .map(s -> s.getMetadata().getPrometheusName())
            .toList();

    assertThat(names).contains("io_punctual_api_jobs_JobsResource_list");
    assertThat(names).noneMatch(n -> n.contains("filtering"));
  }

  @Test
  void aTimerOrHistogramJoinsTheScrapeAtItsFirstValue() {
    MetricRegistry metrics = new MetricRegistry();
    var registry = PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS);
    metrics.timer("io.punctual.api.jobs.JobsResource.cancel");
    metrics.histogram("punctual.worker.claimBatch");
    metrics.meter("punctual.reaper.rescued");
    metrics.counter("punctual.planner.misfires");

    assertThat(names(registry))
        .contains("punctual_reaper_rescued", "punctual_planner_misfires")
        .doesNotContain("io_punctual_api_jobs_JobsResource_cancel", "punctual_worker_claimBatch");

    metrics.timer("io.punctual.api.jobs.JobsResource.cancel").update(Duration.ofMillis(2));
    metrics.histogram("punctual.worker.claimBatch").update(5);
    assertThat(names(registry))
        .contains("io_punctual_api_jobs_JobsResource_cancel", "punctual_worker_claimBatch");
  }

  private static List<String> names(io.prometheus.metrics.model.registry.PrometheusRegistry r) {
    return r.scrape().stream().map(s -> s.getMetadata().getPrometheusName()).toList();
  }
}
