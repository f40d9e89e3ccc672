package io.punctual.deploy.command;

import io.dropwizard.core.Application;
import io.dropwizard.core.cli.CheckCommand;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.punctual.deploy.config.ConfigFileArgument;
import io.punctual.deploy.config.PunctualConfiguration;
import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/** Registers Punctual's subcommands. */
public final class Commands {
  private Commands() {}

  public static void addAll(
      Application<PunctualConfiguration> application, Bootstrap<PunctualConfiguration> bootstrap) {
    bootstrap.addCommand(new DevCommand(application));
    bootstrap.addCommand(new ApiCommand(application));
    bootstrap.addCommand(new WorkerCommand(application));
    bootstrap.addCommand(new ReaperCommand(application));
    bootstrap.addCommand(new PlannerCommand(application));
    bootstrap.addCommand(new MigrateCommand());
    bootstrap.addCommand(new Check(application));
  }

  /** Dropwizard's {@code check} (parse and validate the configuration), on the layered files. */
  private static final class Check extends CheckCommand<PunctualConfiguration> {
    Check(Application<PunctualConfiguration> application) {
      super(application);
    }

    @Override
    protected Argument addFileArgument(Subparser subparser) {
      return ConfigFileArgument.add(subparser);
    }

    @Override
    protected void run(
        Bootstrap<PunctualConfiguration> bootstrap,
        Namespace namespace,
        PunctualConfiguration configuration)
        throws Exception {
      configuration.validate();
      super.run(bootstrap, namespace, configuration);
    }

    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
      ErrorReport.print(cli.getStdErr(), e);
    }
  }
}
