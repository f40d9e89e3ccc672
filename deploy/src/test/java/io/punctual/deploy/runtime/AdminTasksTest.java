package io.punctual.deploy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.punctual.deploy.config.LayeredConfigSource;
import io.punctual.deploy.config.PunctualConfiguration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

/**
 * The admin port as the roles build it (the bundled configuration's server, on free ports) with
 * Dropwizard's tasks taken off: {@code /tasks/gc} and {@code /tasks/log-level} are 404s, the health
 * and metrics pages stay. Without {@link AdminTasks#remove} the same server runs a GC on request,
 * so the check can fail.
 */
class AdminTasksTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void theAdminPortRunsNoTask() throws Exception {
    try (Started admin = start(true)) {
      assertThat(admin.post("/tasks/gc")).isEqualTo(404);
      assertThat(admin.post("/tasks/log-level?logger=ROOT&level=TRACE")).isEqualTo(404);
      assertThat(admin.post("/tasks/")).isEqualTo(404);
      assertThat(admin.get("/tasks/gc")).isEqualTo(404);
      assertThat(admin.get("/ping")).isEqualTo(200);
      assertThat(admin.get("/metrics")).isEqualTo(200);
    }
  }

  @Test
  void withoutTheRemovalDropwizardRunsThem() throws Exception {
    try (Started admin = start(false)) {
      assertThat(admin.post("/tasks/gc")).isEqualTo(200);
    }
  }

  /** A started server of the bundled configuration, its admin port's base URL. */
  private record Started(Server server, String admin) implements AutoCloseable {
    int post(String path) throws Exception {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(admin + path))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }

    int get(String path) throws Exception {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create(admin + path)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }

    @Override
    public void close() throws Exception {
      server.stop();
    }
  }

  private static Started start(boolean removeTasks) throws Exception {
    PunctualConfiguration config =
        new DefaultConfigurationFactoryFactory<PunctualConfiguration>()
            .create(
                PunctualConfiguration.class,
                Validators.newValidator(),
                Jackson.newObjectMapper(),
                "dw")
            .build(new LayeredConfigSource(), LayeredConfigSource.BUNDLED);
    DefaultServerFactory factory = (DefaultServerFactory) config.getServerFactory();
    ((HttpConnectorFactory) factory.getApplicationConnectors().get(0)).setPort(0);
    ((HttpConnectorFactory) factory.getAdminConnectors().get(0)).setPort(0);
    Environment environment = new Environment("admin-tasks-test");
    if (removeTasks) {
      AdminTasks.remove(environment);
    }
    Server server = factory.build(environment);
    server.start();
    return new Started(server, ServerUrls.of(server, factory).admin());
  }
}
