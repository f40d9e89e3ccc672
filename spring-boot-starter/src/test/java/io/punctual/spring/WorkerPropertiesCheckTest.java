package io.punctual.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.worker.config.WorkerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerPropertiesCheckTest {

  @Test
  void theYamlsNamesBecomeTheProperties() {
    assertThat(
            WorkerPropertiesCheck.propertyNames(
                "worker.livenessTtl must be at least twice worker.livenessInterval"))
        .isEqualTo(
            "punctual.worker.liveness-ttl must be at least twice punctual.worker.liveness-interval");
    assertThat(WorkerPropertiesCheck.propertyNames("worker.concurrency must be >= 1"))
        .isEqualTo("punctual.worker.concurrency must be >= 1");
  }

  @Test
  void theDefaultsAreTheYamlsAndTheNamespaceIsPunctualNamespaceUnlessNamed() {
    PunctualProperties properties = new PunctualProperties();
    properties.setNamespace("billing");
    WorkerSettings yaml = new WorkerSettings();
    WorkerSettings bound = WorkerPropertiesCheck.validated(properties);
    assertThat(bound.namespaces).containsExactly("billing");
    assertThat(bound)
        .usingRecursiveComparison()
        .ignoringFields("workerId", "namespaces")
        .isEqualTo(yaml);
    properties.getWorker().setNamespaces(java.util.List.of("a", "b"));
    properties.getWorker().setDefaultTimeout(Duration.ofMinutes(5));
    bound = WorkerPropertiesCheck.validated(properties);
    assertThat(bound.namespaces).containsExactly("a", "b");
    assertThat(bound.defaultTimeout).isEqualTo(Duration.ofMinutes(5));
  }
}
