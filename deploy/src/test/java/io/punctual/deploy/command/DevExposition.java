package io.punctual.deploy.command;

import static org.awaitility.Awaitility.await;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.punctual.deploy.PunctualApplication;
import io.punctual.deploy.config.LayeredConfigSource;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.PrometheusEndpoint;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import net.sourceforge.argparse4j.inf.Namespace;
import org.eclipse.jetty.server.Server;

/**
 * The {@code /prometheus} text of the {@code dev} role (API, worker, planner and reaper in one
 * process, on embedded PostgreSQL and Redis), wired by {@link DevCommand} itself from the bundled
 * configuration, after one job was submitted over HTTP and ran: what a scrape of a real deployment
 * holds, for tests that check names against it.
 */
public final class DevExposition {
  private static final String KEY = "dev-exposition-admin-key-0123456789abcdefghijklmnop";

  private DevExposition() {}

  /** Runs the dev role with its data in {@code dataDir}, and answers one scrape of it. */
  public static String scrape(Path dataDir) throws Exception {
    PunctualConfiguration config =
        new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
            .create(
                PunctualConfiguration.class,
                Validators.newValidator(),
                Jackson.newObjectMapper(),
                "dw")
            .build(new LayeredConfigSource(), LayeredConfigSource.BUNDLED);
    config.dataDir = dataDir.toString();
    config.auth.bootstrapKey = KEY;
    DefaultServerFactory serverFactory = (DefaultServerFactory) config.getServerFactory();
    ((HttpConnectorFactory) serverFactory.getApplicationConnectors().get(0)).setPort(0);
    ((HttpConnectorFactory) serverFactory.getAdminConnectors().get(0)).setPort(0);
    config.validate();

    Environment environment = new Environment("dev-exposition");
    Resources resources = new Resources();
    Server server = null;
    try {
      PrometheusEndpoint.register(environment, config.prometheus.labels());
      new DevCommand(new PunctualApplication())
          .wire(
              new RoleCommand.Wiring(
                  environment, new Namespace(Map.of("fresh", true)), config, resources));
      server = config.getServerFactory().build(environment);
      server.start();
      ServerUrls urls = ServerUrls.of(server, config.getServerFactory());
      URI api = URI.create(urls.application() + "/");
      URI admin = URI.create(urls.admin() + "/");
      try (HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<String> submitted =
            http.send(
                HttpRequest.newBuilder(api.resolve("api/v1/jobs"))
                    .header("Authorization", "Bearer " + KEY)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"noop\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (submitted.statusCode() != 201) {
          throw new IllegalStateException("submit answered " + submitted.body());
        }
        String id = Jackson.newObjectMapper().readTree(submitted.body()).get("id").asText();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    http.send(
                            HttpRequest.newBuilder(api.resolve("api/v1/jobs/" + id))
                                .header("Authorization", "Bearer " + KEY)
                                .build(),
                            HttpResponse.BodyHandlers.ofString())
                        .body()
                        .contains("\"status\":\"SUCCEEDED\""));
        HttpResponse<String> scrape =
            http.send(
                HttpRequest.newBuilder(admin.resolve(PrometheusEndpoint.PATH.substring(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (scrape.statusCode() != 200) {
          throw new IllegalStateException("/prometheus answered " + scrape.statusCode());
        }
        return scrape.body();
      }
    } finally {
      if (server != null) {
        server.stop();
      }
      resources.closeAll();
    }
  }
}
