package io.punctual.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.punctual.common.config.InvalidSettingsException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

class PunctualSettingsFailureAnalyzerTest {

  @Test
  void aStartFailedByWrongSettingsNamesEveryProperty() {
    Throwable failure =
        new BeanCreationException(
            "punctualWorker",
            "factory method threw",
            new InvalidSettingsException(
                List.of(
                    "punctual.worker.lease-ttl must be positive",
                    "punctual.worker.claims-in-flight must be 1 to 16")));

    FailureAnalysis analysis = new PunctualSettingsFailureAnalyzer().analyze(failure);

    assertThat(analysis.getDescription())
        .isEqualTo(
            "Punctual's settings are wrong:\n"
                + "  - punctual.worker.lease-ttl must be positive\n"
                + "  - punctual.worker.claims-in-flight must be 1 to 16");
    assertThat(analysis.getAction()).contains("punctual.*");
  }

  @Test
  void springBootFindsIt() {
    // Others need the bean factory to be made: skipped here.
    List<FailureAnalyzer> analyzers =
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                FailureAnalyzer.class,
                null,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> {}));
    assertThat(analyzers).anyMatch(a -> a instanceof PunctualSettingsFailureAnalyzer);
  }
}
