package io.punctual.deploy.config;

import net.sourceforge.argparse4j.inf.Argument;
import net.sourceforge.argparse4j.inf.Subparser;

/** The optional positional {@code file} argument every command that reads configuration takes. */
public final class ConfigFileArgument {
  private ConfigFileArgument() {}

  public static Argument add(Subparser subparser) {
    return subparser
        .addArgument("file")
        .nargs("?")
        .setDefault(LayeredConfigSource.BUNDLED)
        .help(
            "YAML configuration laid over the bundled punctual.yml (only the settings you"
                + " change); ${VAR:-default} reads environment variables");
  }
}
