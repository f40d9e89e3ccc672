package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.queue.Stores;
import io.punctual.reaper.DeathWatchLoop;
import io.punctual.store.config.PostgresSettings;
import java.util.List;

/** {@code punctual api}: the REST API against the configured PostgreSQL and Redis. */
final class ApiCommand extends RoleCommand {
  ApiCommand(Application<PunctualConfiguration> application) {
    super(application, "api", "Run the REST API against the configured PostgreSQL and Redis");
  }

  @Override
  void wire(Wiring wiring) {
    Environment environment = wiring.environment();
    PunctualConfiguration config = wiring.config();
    Resources resources = wiring.resources();
    // the API's own pool: every statement under api.statementTimeout (no other role's pool)
    PostgresSettings postgres = new PostgresSettings(config.postgres);
    postgres.statementTimeout = config.api.statementTimeout;
    Stores stores = RoleWiring.openStores(postgres, config, "api", resources, environment);
    RoleWiring.checkSchema(stores);
    RoleWiring.registerApi(environment, stores, config, RoleWiring.signingSecrets(config, stores));
    // The API runs a worker for each remote worker of the worker protocol: as beside every
    // `punctual worker`, a death watch rescues within seconds the attempts of one that died.
    DeathWatchLoop deaths = new DeathWatchLoop(stores, config.reaper, environment.metrics());
    resources.addStarted("death watch", deaths::start, deaths::close, environment);
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return withAdmin(
        urls, "Punctual api is running", "  API          " + urls.application() + "/api/v1/jobs");
  }
}
