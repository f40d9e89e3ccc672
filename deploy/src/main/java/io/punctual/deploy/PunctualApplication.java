package io.punctual.deploy;

import io.dropwizard.core.Application;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.punctual.common.json.Json;
import io.punctual.deploy.command.CommandExit;
import io.punctual.deploy.command.Commands;
import io.punctual.deploy.config.LayeredConfigSource;
import io.punctual.deploy.config.PunctualConfiguration;
import java.io.PrintStream;

/**
 * The {@code punctual} program: one jar, one subcommand per role ({@code dev}, {@code api}, {@code
 * worker}, {@code reaper}, {@code planner}, {@code migrate}, {@code check}). Configuration is the
 * bundled {@code punctual.yml} (reading {@code PUNCTUAL_*} environment variables), optionally with
 * a user's YAML file laid over it.
 */
public final class PunctualApplication extends Application<PunctualConfiguration> {

  public static void main(String[] args) throws Exception {
    PunctualApplication application = new PunctualApplication();
    if (args.length == 0 || (args.length == 1 && args[0].equals("help"))) {
      application.printHelp(System.out);
      return;
    }
    application.run(args);
  }

  /** The subcommands and what they do ({@code punctual} without arguments, or {@code help}). */
  void printHelp(PrintStream out) {
    Bootstrap<PunctualConfiguration> bootstrap = new Bootstrap<>(this);
    initialize(bootstrap);
    out.println(
        "Punctual: a distributed job scheduler (PostgreSQL is the truth, Redis is the speed)");
    out.println();
    out.println("usage: punctual <command> [options] [config.yml]");
    out.println();
    out.println("commands:");
    for (Command command : bootstrap.getCommands()) {
      out.printf("  %-9s %s%n", command.getName(), command.getDescription());
    }
    out.println();
    out.println(
        "`punctual <command> -h` shows a command's options. Without a config file the bundled");
    out.println("punctual.yml is used; a file you give is laid over it, and both read PUNCTUAL_*");
    out.println(
        "environment variables (PUNCTUAL_HTTP_PORT, PUNCTUAL_ADMIN_PORT, PUNCTUAL_DATABASE_URL,");
    out.println(
        "PUNCTUAL_DATABASE_USER, PUNCTUAL_DATABASE_PASSWORD, PUNCTUAL_REDIS_URL, PUNCTUAL_DATA_DIR).");
  }

  @Override
  public String getName() {
    return "punctual";
  }

  @Override
  protected void addDefaultCommands(Bootstrap<PunctualConfiguration> bootstrap) {
    // No plain "server": every role has its own command (see Commands).
  }

  @Override
  public void initialize(Bootstrap<PunctualConfiguration> bootstrap) {
    bootstrap.setConfigurationSourceProvider(new LayeredConfigSource());
    Commands.addAll(this, bootstrap);
  }

  @Override
  public void run(PunctualConfiguration configuration, Environment environment) {
    Json.configure(environment.getObjectMapper());
  }

  @Override
  protected void onFatalError(Throwable t) {
    System.exit(t instanceof CommandExit exit ? exit.status() : 1);
  }
}
