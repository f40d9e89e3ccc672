package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.punctual.deploy.config.ConfigFileArgument;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.AdminTasks;
import io.punctual.deploy.runtime.GracefulShutdown;
import io.punctual.deploy.runtime.PrometheusEndpoint;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.deploy.runtime.StoreHealthChecks;
import io.punctual.queue.Stores;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * A long-running role: wires its parts into the Dropwizard environment, then runs the HTTP server
 * (the admin port always serves {@code /healthcheck}, {@code /metrics} and {@code /prometheus}, and
 * no Dropwizard task: {@link AdminTasks}). SIGTERM and Ctrl-C stop the parts in reverse order of
 * start and exit with status 0.
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
              started(urls, config, shutdown::stopNow);
            });
    try {
      PrometheusEndpoint.register(environment, config.prometheus.labels());
      AdminTasks.remove(environment);
      wire(new Wiring(environment, namespace, config, resources));
      super.run(environment, namespace, config);
    } catch (Exception | Error e) {
      resources.closeAll();
      throw e;
    }
  }

  /**
   * What a role is wired with: Dropwizard's environment, the command line, the validated
   * configuration, and the resources to register each part with, in the order opened (they close in
   * the reverse order).
   */
  record Wiring(
      Environment environment,
      Namespace namespace,
      PunctualConfiguration config,
      Resources resources) {

    /** The stores of a role that serves only the admin port ({@link #openAdminOnlyRole}). */
    Stores openAdminOnlyRole(String role) {
      return RoleCommand.openAdminOnlyRole(config, role, resources, environment);
    }
  }

  /** Opens this role's parts, registering each with the resources in the order opened. */
  abstract void wire(Wiring wiring) throws Exception;

  /** The lines printed once the server is up. */
  abstract List<String> banner(ServerUrls urls, PunctualConfiguration config);

  /** Stops the process as a SIGTERM would, logging {@code reason}, exiting with {@code status}. */
  interface Stop {
    void stop(String reason, int status);
  }

  /** Called once the server is up, after the banner. Nothing by default. */
  void started(ServerUrls urls, PunctualConfiguration config, Stop stop) {}

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

  /** {@code lines}, then where the admin port serves health and metrics. */
  static List<String> withAdmin(ServerUrls urls, String... lines) {
    List<String> out = new ArrayList<>(List.of(lines));
    out.add("  Health       " + admin(urls, "/healthcheck"));
    out.add("  Metrics      " + admin(urls, "/metrics"));
    return out;
  }

  /**
   * A role that serves only the admin port (worker, planner, reaper): its stores opened, the schema
   * checked, their health checks registered.
   */
  static Stores openAdminOnlyRole(
      PunctualConfiguration config, String role, Resources resources, Environment environment) {
    adminOnly(config);
    Stores stores = RoleWiring.openStores(config, role, resources, environment);
    RoleWiring.checkSchema(stores);
    StoreHealthChecks.register(environment, stores, config.api.redisTimeout);
    return stores;
  }

  /** Adds {@code --once}: one pass, what it did printed, then exit. */
  static void addOnce(Subparser subparser, String help) {
    subparser.addArgument("--once").action(Arguments.storeTrue()).help(help);
  }

  /**
   * For {@code --once}: the configuration validated, the stores opened by {@code role} with the
   * system clock and the schema checked. Close them after the pass.
   */
  static Stores openForOnePass(PunctualConfiguration config, String role) {
    config.validate();
    Stores stores =
        new Stores(config.postgres, config.redis, config.queue, Clock.systemUTC(), role);
    RoleWiring.checkSchema(stores);
    return stores;
  }
}
