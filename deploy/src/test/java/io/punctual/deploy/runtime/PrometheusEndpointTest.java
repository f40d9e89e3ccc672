package io.punctual.deploy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.core.setup.Environment;
import io.punctual.common.metrics.JobMetrics;
import io.punctual.common.metrics.MetricLabels;
import io.punctual.model.Priority;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/** The admin context of a role, served by Jetty on loopback, answers /prometheus in text format. */
class PrometheusEndpointTest {
  @Test
  void theAdminContextAnswersPrometheusText() throws Exception {
    Environment environment = new Environment("prometheus-test");
    PrometheusEndpoint.register(environment, MetricLabels.DEFAULTS);
    JobMetrics jobs = JobMetrics.of(environment.metrics());
    jobs.submitted("default", "noop", 3);
    AutoCloseable depth = jobs.queueDepth("default", Priority.NORMAL, () -> 4, () -> 1);
    environment.metrics().meter("punctual.reaper.rescued").mark(2);

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(environment.getAdminContext());
    server.start();
    try (HttpClient client = HttpClient.newHttpClient()) {
      URI uri =
          URI.create("http://127.0.0.1:" + connector.getLocalPort() + PrometheusEndpoint.PATH);
      HttpResponse<String> response =
          client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
      assertThat(response.body())
          .contains("# TYPE punctual_jobs_submitted_total counter")
          .contains("punctual_jobs_submitted_total{namespace=\"default\",type=\"noop\"} 3.0")
          .contains("punctual_reaper_rescued_total 2.0")
          .contains("# TYPE punctual_queue_due_jobs gauge")
          .contains("punctual_queue_due_jobs{namespace=\"default\",priority=\"normal\"} 4.0")
          .contains("punctual_queue_future_jobs{namespace=\"default\",priority=\"normal\"} 1.0")
          .contains("jvm_threads_current");
    } finally {
      depth.close();
      server.stop();
    }
  }
}
