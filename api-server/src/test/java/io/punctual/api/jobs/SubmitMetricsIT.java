package io.punctual.api.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.punctual.api.support.ApiFixture;
import io.punctual.common.metrics.JobMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The API counts what it stored in the labelled {@code punctual_jobs_submitted} series. */
class SubmitMetricsIT {
  static final ApiFixture FIXTURE = ApiFixture.start();

  @RegisterExtension static final DropwizardAppExtension<?> APP = FIXTURE.app;

  @Test
  void submittedJobsAreCountedByNamespaceAndType() {
    assertThat(FIXTURE.http().post("/api/v1/jobs", "{\"type\":\"probe.single\"}").status())
        .isEqualTo(201);
    assertThat(
            FIXTURE
                .http()
                .post(
                    "/api/v1/jobs/batch",
                    "{\"jobs\":[{\"type\":\"probe.batch\"},{\"type\":\"probe.batch\"}]}")
                .status())
        .isEqualTo(201);

    assertThat(submitted("default", "probe.single")).isEqualTo(1.0);
    assertThat(submitted("default", "probe.batch")).isEqualTo(2.0);
  }

  private static double submitted(String namespace, String type) {
    JobMetrics jobs = JobMetrics.of(APP.getEnvironment().metrics());
    for (MetricSnapshot s : jobs.registry().scrape()) {
      if (s instanceof CounterSnapshot c
          && c.getMetadata().getName().equals("punctual_jobs_submitted")) {
        for (CounterSnapshot.CounterDataPointSnapshot d : c.getDataPoints()) {
          if (namespace.equals(d.getLabels().get("namespace"))
              && type.equals(d.getLabels().get("type"))) {
            return d.getValue();
          }
        }
      }
    }
    return 0;
  }
}
