package io.punctual.deploy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.logging.common.ConsoleAppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import io.punctual.common.config.InvalidSettingsException;
import io.punctual.common.metrics.MetricLabels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings of docs/observing.md's Prometheus and JSON logs sections, read as a role would. */
class ObservabilityConfigTest {
  @TempDir Path dir;

  private PunctualConfiguration load(String yaml) throws Exception {
    Path file = dir.resolve("punctual.yml");
    Files.writeString(file, yaml);
    return new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
        .create(
            PunctualConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
        .build(new LayeredConfigSource(), file.toString());
  }

  @Test
  void theJsonLayoutOfTheDocsIsUnderstood() throws Exception {
    PunctualConfiguration config =
        load(
            """
            logging:
              appenders:
                - type: console
                  layout:
                    type: json
                    flattenMdc: true
            """);

    DefaultLoggingFactory logging = (DefaultLoggingFactory) config.getLoggingFactory();
    assertThat(logging.getAppenders()).hasSize(1);
    ConsoleAppenderFactory<?> console = (ConsoleAppenderFactory<?>) logging.getAppenders().get(0);
    assertThat(console.getLayout())
        .isInstanceOfSatisfying(
            EventJsonLayoutBaseFactory.class, json -> assertThat(json.isFlattenMdc()).isTrue());
  }

  @Test
  void labelCapsDefaultToAHundredAndAreChecked() throws Exception {
    assertThat(load("dataDir: x\n").prometheus.labels()).isEqualTo(MetricLabels.DEFAULTS);
    PunctualConfiguration config = load("prometheus:\n  maxNamespaces: 5\n  maxTypes: -1\n");
    assertThat(config.prometheus.maxNamespaces).isEqualTo(5);

    assertThatThrownBy(config::validate)
        .isInstanceOfSatisfying(
            InvalidSettingsException.class,
            e -> assertThat(e.errors()).contains("prometheus.maxTypes must be >= 0"));
  }
}
