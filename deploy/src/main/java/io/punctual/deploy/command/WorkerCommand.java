package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.deploy.runtime.StoreHealthChecks;
import io.punctual.queue.Stores;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;

/**
 * {@code punctual worker}: runs jobs (and the promoter) against the configured PostgreSQL and
 * Redis. Serves only the admin port: {@code /healthcheck} and {@code /metrics}.
 */
final class WorkerCommand extends RoleCommand {
  WorkerCommand(Application<PunctualConfiguration> application) {
    super(
        application,
        "worker",
        "Run a worker (and the promoter) against the configured PostgreSQL and Redis");
  }

  @Override
  void wire(
      Environment environment,
      Namespace namespace,
      PunctualConfiguration config,
      Resources resources) {
    adminOnly(config);
    Stores stores = RoleWiring.openStores(config, "worker", resources, environment);
    RoleWiring.checkSchema(stores);
    StoreHealthChecks.register(environment, stores, config.api.redisTimeout);
    RoleWiring.startWorker(config, stores, resources, environment);
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return List.of(
        "Punctual worker "
            + config.worker.workerId
            + " is running (namespaces "
            + config.worker.namespaces
            + ", concurrency "
            + config.worker.concurrency
            + ")",
        "  Health       " + admin(urls, "/healthcheck"),
        "  Metrics      " + admin(urls, "/metrics"));
  }
}
