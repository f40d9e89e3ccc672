package io.punctual.deploy.command;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.deploy.schedules.DeclaredSchedules;
import io.punctual.planner.plan.Planner;
import io.punctual.planner.plan.PlannerWiring;
import io.punctual.queue.Stores;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code punctual planner}: materialises the occurrences of every active schedule as jobs, ahead of
 * time and exactly once (see {@link Planner}); registers the schedules declared under {@code
 * planner.schedules} when it starts. Serves only the admin port. Any number may run: they split the
 * due schedules between them. {@code --once} does one pass, prints what it did and exits.
 */
final class PlannerCommand extends RoleCommand {
  PlannerCommand(Application<PunctualConfiguration> application) {
    super(
        application,
        "planner",
        "Materialise the occurrences of cron and interval schedules as jobs (any number may run)");
  }

  @Override
  public void configure(Subparser subparser) {
    super.configure(subparser);
    addOnce(subparser, "do one planning pass, print what was planned, exit");
  }

  @Override
  protected void run(Environment environment, Namespace namespace, PunctualConfiguration config)
      throws Exception {
    if (!namespace.getBoolean("once")) {
      super.run(environment, namespace, config);
      return;
    }
    try (Stores stores = openForOnePass(config, "planner")) {
      Planner.Pass pass = planner(config, stores, new MetricRegistry()).runOnce();
      System.out.println(
          "planner pass: "
              + pass.schedules()
              + " schedules planned, "
              + pass.jobs()
              + " jobs materialised ("
              + pass.queued()
              + " queued in Redis), "
              + pass.skipped()
              + " occurrences skipped, "
              + pass.misfires()
              + " schedules with missed fire times");
    }
  }

  @Override
  void wire(Wiring wiring) {
    RoleWiring.startPlanner(wiring, wiring.openAdminOnlyRole("planner"));
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return withAdmin(
        urls,
        "Punctual planner is running (look-ahead "
            + config.planner.lookAhead
            + ", batches of "
            + config.planner.batchSize
            + ", "
            + config.planner.schedules.size()
            + " declared schedules)");
  }

  static Planner planner(PunctualConfiguration config, Stores stores, MetricRegistry metrics) {
    return PlannerWiring.planner(
        stores,
        config.planner,
        metrics,
        "planner-" + ProcessHandle.current().pid(),
        DeclaredSchedules.parse(config.planner, config.api, stores.clock().instant()));
  }
}
