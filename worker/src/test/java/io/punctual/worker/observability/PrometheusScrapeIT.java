package io.punctual.worker.observability;

import static io.punctual.store.testing.Jobs.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.common.metrics.MetricLabels;
import io.punctual.common.metrics.PrometheusExposition;
import io.punctual.handler.JobContext;
import io.punctual.handler.JobHandler;
import io.punctual.handler.JobResult;
import io.punctual.handler.NonRetryableException;
import io.punctual.model.Job;
import io.punctual.model.JobState;
import io.punctual.model.Priority;
import io.punctual.worker.WorkerHarness;
import io.punctual.worker.config.WorkerSettings;
import io.punctual.worker.handler.registry.JobHandlers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus text a role serves on /prometheus, after a real worker ran jobs against real
 * PostgreSQL and Redis: the labelled job series, the bridged Dropwizard metrics and the JVM's.
 */
class PrometheusScrapeIT {
  private final WorkerHarness harness = new WorkerHarness();

  @AfterEach
  void close() {
    harness.close();
  }

  @Test
  void theScrapeHasTheJobSeriesByNamespaceTypeAndOutcome() throws IOException {
    // As a role does before its parts are made: the exposition over the role's registry.
    PrometheusRegistry registry =
        PrometheusExposition.registry(harness.metrics, MetricLabels.DEFAULTS);
    WorkerSettings settings = WorkerHarness.settings();
    JobHandlers handlers = harness.builtIns(settings);
    handlers.register(
        new JobHandler() {
          @Override
          public String type() {
            return "reject";
          }

          @Override
          public JobResult handle(JobContext ctx) throws Exception {
            throw new NonRetryableException("no");
          }
        });
    harness.start(settings, handlers);
    Job ok = harness.submit(aJob().type("noop").priority(Priority.HIGH).build());
    Job bad = harness.submit(aJob().type("reject").build());
    // One due in five minutes: within the horizon it waits in Redis as a future job.
    harness.submit(aJob().type("noop").runAt(Instant.now().plus(Duration.ofMinutes(5))).build());
    harness.awaitState(ok, JobState.SUCCEEDED);
    harness.awaitState(bad, JobState.FAILED);
    harness.awaitMeter("failed", 1);

    String text =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () -> scrape(registry),
                t ->
                    t.contains(
                        "punctual_queue_future_jobs{namespace=\"default\",priority=\"normal\"} 1.0"));

    assertThat(text)
        .contains("# TYPE punctual_jobs_started_total counter")
        .contains("punctual_jobs_started_total{namespace=\"default\",type=\"noop\"} 1.0")
        .contains(
            "punctual_jobs_ended_total{namespace=\"default\",outcome=\"succeeded\",type=\"noop\"}"
                + " 1.0")
        .contains(
            "punctual_jobs_ended_total{namespace=\"default\",outcome=\"failed\",type=\"reject\"} 1.0")
        .contains("# TYPE punctual_job_start_lag_seconds histogram")
        .contains("punctual_job_start_lag_seconds_count{namespace=\"default\",priority=\"high\"} 1")
        .contains("# TYPE punctual_job_handler_duration_seconds histogram")
        .contains(
            "punctual_job_handler_duration_seconds_bucket{namespace=\"default\",type=\"noop\",le=\"+Inf\"} 1")
        .contains("punctual_queue_due_jobs{namespace=\"default\",priority=\"critical\"} 0.0")
        .contains("punctual_worker_claims_total{namespace=\"default\"}")
        .contains("# TYPE punctual_worker_leases_lost_total counter")
        // Dropwizard metrics through the bridge, and the JVM's.
        .contains("punctual_worker_succeeded_total 1.0")
        .contains("punctual_worker_queueRebuilds")
        .contains("punctual_worker_execution")
        .contains("jvm_memory_used_bytes")
        // The per-namespace Dropwizard queue gauges are left out (the labelled ones replace them).
        .doesNotContain("punctual_queue_default_");
    assertThat(text.lines().filter(l -> l.startsWith("# TYPE ")).count()).isGreaterThan(20);
  }

  @Test
  void typesPastTheCapAreCountedAsOther() throws IOException {
    MetricRegistry metrics = new MetricRegistry();
    PrometheusRegistry registry = PrometheusExposition.registry(metrics, new MetricLabels(2, 1));
    JobMetrics jobs = JobMetrics.of(metrics);
    for (String type : List.of("a", "b", "c", "a")) {
      jobs.submitted("ns" + type, type, 1);
    }

    String text = scrape(registry);

    assertThat(text)
        .contains("punctual_jobs_submitted_total{namespace=\"nsa\",type=\"a\"} 2.0")
        .contains("punctual_jobs_submitted_total{namespace=\"nsb\",type=\"other\"} 1.0")
        .contains("punctual_jobs_submitted_total{namespace=\"other\",type=\"other\"} 1.0")
        .doesNotContain("type=\"b\"")
        .doesNotContain("nsc");
    // One holder per registry, and one exposition: asking again changes nothing.
    assertThat(PrometheusExposition.registry(metrics, MetricLabels.DEFAULTS)).isSameAs(registry);
  }

  private static String scrape(PrometheusRegistry registry) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    return out.toString(StandardCharsets.UTF_8);
  }
}
