package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.ServerUrls;
import java.util.List;

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
  void wire(Wiring wiring) {
    RoleWiring.startWorker(wiring, wiring.openAdminOnlyRole("worker"));
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return withAdmin(
        urls,
        "Punctual worker "
            + config.worker.workerId
            + " is running (namespaces "
            + config.worker.namespaces
            + ", concurrency "
            + config.worker.concurrency
            + ")");
  }
}
