package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.common.Stores;
import io.punctual.deploy.PunctualConfiguration;
import io.punctual.deploy.reaper.ReaperLoop;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.deploy.runtime.StoreHealthChecks;
import java.time.Clock;
import java.util.List;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code punctual reaper}: the promoter loop (moves pending jobs into Redis as they come due, and
 * rebuilds the Redis queue from PostgreSQL after Redis lost its data) and partition maintenance.
 * {@code --once} does one pass and exits.
 */
final class ReaperCommand extends RoleCommand {
  ReaperCommand(Application<PunctualConfiguration> application) {
    super(
        application,
        "reaper",
        "Run the promoter (rebuilds the Redis queue from PostgreSQL) and partition maintenance");
  }

  @Override
  public void configure(Subparser subparser) {
    super.configure(subparser);
    subparser
        .addArgument("--once")
        .action(Arguments.storeTrue())
        .help("do one promoter pass and one partition check, print what was done, exit");
  }

  @Override
  protected void run(Environment environment, Namespace namespace, PunctualConfiguration config)
      throws Exception {
    if (!namespace.getBoolean("once")) {
      super.run(environment, namespace, config);
      return;
    }
    config.validate();
    try (Stores stores =
        new Stores(config.postgres, config.redis, config.queue, Clock.systemUTC(), "reaper")) {
      RoleWiring.checkSchema(stores);
      ReaperLoop.Pass pass = new ReaperLoop(stores, holder()).runOnce();
      System.out.println(
          "reaper pass: "
              + pass.promoted()
              + " jobs promoted into Redis, "
              + pass.partitionsCreated()
              + " partition tables created");
    }
  }

  @Override
  void wire(
      Environment environment,
      Namespace namespace,
      PunctualConfiguration config,
      Resources resources) {
    adminOnly(config);
    Stores stores = RoleWiring.openStores(config, "reaper", resources, environment);
    RoleWiring.checkSchema(stores);
    StoreHealthChecks.register(environment, stores, config.api.redisTimeout);
    ReaperLoop loop = new ReaperLoop(stores, holder());
    resources.addStarted("reaper", loop::start, loop::close, environment);
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return List.of(
        "Punctual reaper is running (promoter every "
            + config.queue.promoterInterval
            + ", partitions checked every "
            + ReaperLoop.PARTITION_INTERVAL
            + ")",
        "  Health       " + admin(urls, "/healthcheck"),
        "  Metrics      " + admin(urls, "/metrics"));
  }

  private static String holder() {
    return "reaper-" + ProcessHandle.current().pid();
  }
}
