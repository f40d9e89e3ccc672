package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.punctual.deploy.config.ConfigFileArgument;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.GracefulShutdown;
import io.punctual.deploy.runtime.PrometheusEndpoint;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import java.io.PrintStream;
import java.util.List;
import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * A long-running role: wires its parts into the Dropwizard environment, then runs the HTTP server
 * (the admin port always serves {@code /healthcheck}, {@code /metrics} and {@code /prometheus}).
 * SIGTERM and Ctrl-C stop the parts in reverse order of start and exit with status 0.
 */
abstract class RoleCommand extends ServerCommand<PunctualConfiguration> {
  private final Resources resources = new Resources();
  private final GracefulShutdown shutdown = new GracefulShutdown(resources);

  RoleCommand(Application<PunctualConfiguration> application, String name, String description) {
    super(application, name, description);
  }

  @Override
  protected Argument addFileArgument(Subparser subparser) {
    return ConfigFileArgument.add(subparser);
  }

  @Override
  protected void run(Environment environment, Namespace namespace, PunctualConfiguration config)
      throws Exception {
    config.validate();
    shutdown.install();
    environment
        .lifecycle()
        .addServerLifecycleListener(
            server -> {
              shutdown.serverStarted(server);
              ServerUrls urls = ServerUrls.of(server, config.getServerFactory());
              PrintStream out = System.out;
              out.println();
              for (String line : banner(urls, config)) {
                out.println(line);
              }
              out.println();
              out.flush();
            });
    try {
      PrometheusEndpoint.register(environment, config.prometheus.labels());
      wire(environment, namespace, config, resources);
      super.run(environment, namespace, config);
    } catch (Exception | Error e) {
      resources.closeAll();
      throw e;
    }
  }

  /** Opens this role's parts, registering each with {@code resources} in the order opened. */
  abstract void wire(
      Environment environment,
      Namespace namespace,
      PunctualConfiguration config,
      Resources resources)
      throws Exception;

  /** The lines printed once the server is up. */
  abstract List<String> banner(ServerUrls urls, PunctualConfiguration config);

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    ErrorReport.print(cli.getStdErr(), e);
  }

  /** Serve only the admin connector (health, metrics): the role has no API. */
  static void adminOnly(PunctualConfiguration config) {
    if (config.getServerFactory() instanceof DefaultServerFactory server) {
      server.setApplicationConnectors(List.of());
    }
  }

  static String admin(ServerUrls urls, String path) {
    return urls.admin() == null ? "(no admin connector)" : urls.admin() + path;
  }
}
