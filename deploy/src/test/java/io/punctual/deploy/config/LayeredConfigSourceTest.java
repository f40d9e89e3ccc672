package io.punctual.deploy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.punctual.worker.config.WorkerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayeredConfigSourceTest {
  @TempDir Path dir;

  private static PunctualConfiguration load(String path)
      throws IOException, ConfigurationException {
    // The factory the commands use: it turns FAIL_ON_UNKNOWN_PROPERTIES on.
    return new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
        .create(
            PunctualConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw")
        .build(new LayeredConfigSource(), path);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }

  private static int port(HttpConnectorFactory connector) {
    return connector.getPort();
  }

  @Test
  void bundledConfigurationReadsEnvironmentWithDefaults() throws Exception {
    PunctualConfiguration config = load(LayeredConfigSource.BUNDLED);

    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    assertThat(port((HttpConnectorFactory) server.getApplicationConnectors().get(0)))
        .isEqualTo(Integer.parseInt(env("PUNCTUAL_HTTP_PORT", "8080")));
    assertThat(port((HttpConnectorFactory) server.getAdminConnectors().get(0)))
        .isEqualTo(Integer.parseInt(env("PUNCTUAL_ADMIN_PORT", "8081")));
    assertThat(((HttpConnectorFactory) server.getAdminConnectors().get(0)).getBindHost())
        .isEqualTo(env("PUNCTUAL_ADMIN_HOST", "127.0.0.1"));
    assertThat(((HttpConnectorFactory) server.getApplicationConnectors().get(0)).getBindHost())
        .isNull();
    assertThat(server.isEnableVirtualThreads()).isTrue();
    assertThat(config.postgres.url)
        .isEqualTo(env("PUNCTUAL_DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/punctual"));
    assertThat(config.postgres.user).isEqualTo(env("PUNCTUAL_DATABASE_USER", "postgres"));
    assertThat(config.redis.url).isEqualTo(env("PUNCTUAL_REDIS_URL", "redis://127.0.0.1:6379"));
    assertThat(config.dataDir).isEqualTo(env("PUNCTUAL_DATA_DIR", ".punctual-data"));
    assertThat(config.worker.concurrency).isEqualTo(new WorkerSettings().concurrency);
    assertThat(String.join(",", config.worker.http.allow))
        .isEqualTo(env("PUNCTUAL_HTTP_ALLOW", "").replace(" ", ""));
    assertThat(String.join(",", config.worker.http.signingSecrets))
        .isEqualTo(env("PUNCTUAL_HTTP_SIGNING_SECRETS", "").replace(" ", ""));
    config.validate();
  }

  @Test
  void userFileIsLaidOverTheBundledOneAndReadsTheEnvironmentToo() throws Exception {
    Map.Entry<String, String> variable =
        System.getenv().entrySet().stream()
            .filter(e -> e.getKey().matches("[A-Z_]+") && e.getValue().matches("[A-Za-z0-9/._-]+"))
            .findFirst()
            .orElseThrow();
    Path file = dir.resolve("my.yml");
    Files.writeString(
        file,
        """
        worker:
          concurrency: 8
          namespaces: [billing, "${PUNCTUAL_TEST_UNSET_VARIABLE:-mail}"]
        queue:
          horizon: PT5M
          weights: {CRITICAL: 10}
        api:
          defaultNamespace: "${%s}"
        """
            .formatted(variable.getKey()));

    PunctualConfiguration config = load(file.toString());

    assertThat(config.worker.concurrency).isEqualTo(8);
    assertThat(config.worker.namespaces).containsExactly("billing", "mail");
    assertThat(config.queue.horizon).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.api.defaultNamespace).isEqualTo(variable.getValue());
    // Untouched sections keep the bundled values.
    assertThat(config.redis.url).isEqualTo(env("PUNCTUAL_REDIS_URL", "redis://127.0.0.1:6379"));
    DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
    assertThat(server.getAdminConnectors()).hasSize(1);
    assertThat(server.isEnableVirtualThreads()).isTrue();
  }

  @Test
  void misspelledSettingIsRejected() throws Exception {
    Path file = dir.resolve("typo.yml");
    Files.writeString(file, "worker:\n  concurency: 8\n");

    assertThatThrownBy(() -> load(file.toString()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("concurency");
  }

  @Test
  void settingsThatDoNotFitTogetherFailValidation() throws Exception {
    Path file = dir.resolve("bad.yml");
    Files.writeString(file, "queue:\n  horizon: PT10S\n  promoterSlack: PT30S\n");

    PunctualConfiguration config = load(file.toString());

    assertThatThrownBy(config::validate)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue.horizon");
  }

  @Test
  void missingUserFileIsNamed() {
    assertThatThrownBy(() -> load(dir.resolve("nope.yml").toString()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("nope.yml");
  }

  @Test
  void mergeReplacesScalarsAndListsAndMergesObjects() throws Exception {
    var yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
            new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    var base = yaml.readTree("a: {b: 1, c: [1, 2]}\nd: x\n");
    var overlay = yaml.readTree("a: {c: [3]}\ne: y\n");

    assertThat(LayeredConfigSource.merge(base, overlay))
        .isEqualTo(yaml.readTree("a: {b: 1, c: [3]}\nd: x\ne: y\n"));
  }
}
