package io.punctual.deploy.command;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.punctual.deploy.config.ConfigFileArgument;
import io.punctual.deploy.config.PunctualConfiguration;
import io.punctual.store.Database;
import io.punctual.store.Migrations;
import io.punctual.store.PartitionManager;
import java.time.Clock;
import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.flywaydb.core.api.output.MigrateResult;

/** {@code punctual migrate}: Flyway migrations and the partitions ahead, then exit. */
final class MigrateCommand extends ConfiguredCommand<PunctualConfiguration> {
  MigrateCommand() {
    super(
        "migrate",
        "Create or upgrade the schema in the configured PostgreSQL and the partitions ahead, then"
            + " exit");
  }

  @Override
  protected Argument addFileArgument(Subparser subparser) {
    return ConfigFileArgument.add(subparser);
  }

  @Override
  protected void run(
      Bootstrap<PunctualConfiguration> bootstrap,
      Namespace namespace,
      PunctualConfiguration config) {
    config.validate();
    try (Database database = Database.connect(config.postgres, "migrate")) {
      MigrateResult result = Migrations.migrate(database.dataSource());
      PartitionManager partitions =
          new PartitionManager(
              database.jdbi(), Clock.systemUTC(), Math.max(1, config.postgres.partitionDaysAhead));
      int created = partitions.ensureAhead();
      System.out.println(
          "migrated "
              + config.postgres.url
              + ": schema version "
              + RoleWiring.schemaVersion(result)
              + " ("
              + result.migrationsExecuted
              + " migrations applied now), "
              + created
              + " partition tables created ("
              + Math.max(1, config.postgres.partitionDaysAhead)
              + " days ahead)");
    }
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    ErrorReport.print(cli.getStdErr(), e);
  }
}
