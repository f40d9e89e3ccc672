package io.punctual.deploy.command;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.punctual.deploy.config.ConfigFileArgument;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** {@code punctual planner}: cron and interval schedules do not exist yet; says so, exits 2. */
final class PlannerCommand extends Command {
  static final int NOT_AVAILABLE = 2;

  PlannerCommand() {
    super("planner", "Cron planner (not available yet: cron schedules are not implemented)");
  }

  @Override
  public void configure(Subparser subparser) {
    ConfigFileArgument.add(subparser);
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) {
    throw new CommandExit(
        NOT_AVAILABLE,
        "punctual planner: cron and interval schedules are not available yet, so there is"
            + " nothing to plan. Submit jobs with runAt or delay instead (see README.md).");
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    ErrorReport.print(cli.getStdErr(), e);
  }
}
