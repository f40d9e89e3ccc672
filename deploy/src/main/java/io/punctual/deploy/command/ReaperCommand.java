package io.punctual.deploy.command;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.punctual.alerter.Alerter;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.deploy.runtime.Resources;
import io.punctual.deploy.runtime.ServerUrls;
import io.punctual.queue.Stores;
import io.punctual.reaper.Reaper;
import java.util.List;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code punctual reaper}: every repair that keeps accepted jobs on their way (see {@link Reaper}):
 * lost attempts rescued, Redis reconciled with PostgreSQL and rebuilt after it lost its data, jobs
 * promoted into the horizon, partitions and retention. {@code --once} does one pass of each and
 * exits (for a Kubernetes CronJob).
 */
final class ReaperCommand extends RoleCommand {
  ReaperCommand(Application<PunctualConfiguration> application) {
    super(
        application,
        "reaper",
        "Rescue lost attempts, reconcile and rebuild Redis from PostgreSQL, promote jobs,"
            + " keep partitions and retention");
  }

  @Override
  public void configure(Subparser subparser) {
    super.configure(subparser);
    addOnce(
        subparser, "do one pass of every repair (and of the alerter), print what was done, exit");
  }

  @Override
  protected void run(Environment environment, Namespace namespace, PunctualConfiguration config)
      throws Exception {
    if (!namespace.getBoolean("once")) {
      super.run(environment, namespace, config);
      return;
    }
    try (Stores stores = openForOnePass(config, "reaper");
        Reaper reaper = new Reaper(stores, config.reaper, new MetricRegistry(), holder())) {
      // Closing the reaper releases the promoter lease this pass took.
      Reaper.Pass pass = reaper.runOnce();
      System.out.println(
          "reaper pass: "
              + pass.rescued()
              + " lost attempts rescued, "
              + pass.repairs().enqueued()
              + " pending jobs re-queued in Redis, "
              + pass.repairs().removed()
              + " stale Redis entries removed, "
              + pass.promoted()
              + " jobs promoted into Redis"
              + (pass.queueRebuilds() > 0 ? " (queue rebuilt from PostgreSQL)" : "")
              + ", "
              + pass.upkeep().partitionsCreated()
              + " partition tables created, "
              + pass.upkeep().partitionsDropped().size()
              + " dropped past retention"
              + (pass.upkeep().partitionsKept().isEmpty()
                  ? ""
                  : ", kept (jobs not final yet): " + pass.upkeep().partitionsKept()));
      if (config.alerts.enabled) {
        try (Alerter alerter =
            new Alerter(
                stores.database().jdbi(),
                stores.clock(),
                config.alerts,
                config.worker.http,
                RoleWiring.signer(config, stores),
                new MetricRegistry())) {
          Alerter.Pass alerts = alerter.runOnce();
          System.out.println(
              "alerter pass: "
                  + alerts.folded()
                  + " alert events folded, "
                  + alerts.sent().sent()
                  + " notices sent, "
                  + alerts.sent().failed()
                  + " attempts failed");
        }
      }
    }
  }

  @Override
  void wire(Wiring wiring) {
    Stores stores = wiring.openAdminOnlyRole("reaper");
    startReaper(wiring, stores, holder());
  }

  /** The reaper's loops, and the alerter beside them unless {@code alerts.enabled} is false. */
  static void startReaper(Wiring wiring, Stores stores, String holder) {
    Environment environment = wiring.environment();
    PunctualConfiguration config = wiring.config();
    Resources resources = wiring.resources();
    Reaper reaper = new Reaper(stores, config.reaper, environment.metrics(), holder);
    resources.addStarted("reaper", reaper::start, reaper::close, environment);
    if (!config.alerts.enabled) {
      return;
    }
    Alerter alerter =
        new Alerter(
            stores.database().jdbi(),
            stores.clock(),
            config.alerts,
            config.worker.http,
            RoleWiring.signer(config, stores),
            environment.metrics());
    resources.addStarted("alerter", alerter::start, alerter::close, environment);
  }

  @Override
  List<String> banner(ServerUrls urls, PunctualConfiguration config) {
    return withAdmin(
        urls,
        "Punctual reaper is running (repairs every "
            + config.reaper.interval
            + ", attempts silent for "
            + config.reaper.rescueAfter
            + " are rescued, partitions checked every "
            + config.reaper.partitionInterval
            + ")");
  }

  private static String holder() {
    return "reaper-" + ProcessHandle.current().pid();
  }
}
